// hash_key: the part of a request an upstream with `"balance": {"hash": KEY}` hashes.
#pragma once

#include <string_view>

#include <tiffany/http/headers.hpp>

#include "conf/config.hpp"

namespace tiffany::upstream {

/// The client address, the path (without the query) or the named header's
/// first value; "" when the header is absent or the group does not hash. An
/// empty key is balanced round robin by UpstreamGroup::pick (one missing
/// header must not send every such request to one server).
inline std::string_view hash_key(const UpstreamConfig& config, std::string_view client_address, std::string_view target,
                                 const http::Headers& headers) {
  if (config.balance != UpstreamBalance::hash) return {};
  switch (config.hash_key) {
    case UpstreamHashKey::client_address: return client_address;
    case UpstreamHashKey::path: return target.substr(0, target.find('?'));
    case UpstreamHashKey::header: return headers.get(config.hash_header).value_or(std::string_view());
  }
  return {};
}

}  // namespace tiffany::upstream
