// parse_origin_url: splits an http:// or https:// URL into the origin to connect to and the request target.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tiffany::detail {

struct OriginUrl {
  bool tls = false;
  std::string host;  ///< to connect to: a name or an IP literal, without brackets
  std::uint16_t port = 80;
  std::string host_header;  ///< the Host field: host[:port] as written (brackets kept)
  std::string target;       ///< origin-form: path and query, "/" if absent
  std::string origin_key;   ///< "https://host 443": the pool this request uses
};

/// The parts of `url`, or nullopt with `error` saying what is wrong (an
/// unknown scheme, userinfo, an empty or bad host, a bad port, a fragment is dropped).
std::optional<OriginUrl> parse_origin_url(std::string_view url, std::string& error);

}  // namespace tiffany::detail
