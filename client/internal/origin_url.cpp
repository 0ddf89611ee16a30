// parse_origin_url: http(s)://host[:port][/path][?query] into an origin and a target.
#include "client/internal/origin_url.hpp"

#include <charconv>

namespace tiffany::detail {
namespace {

bool is_host_char(char c) noexcept {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_';
}

bool is_ipv6_char(char c) noexcept {
  return (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') || (c >= '0' && c <= '9') || c == ':' || c == '.';
}

// Path and query bytes: visible ASCII only (no space, no controls, no DEL,
// nothing past 0x7e), so the target cannot break the request line.
bool is_target_char(char c) noexcept { return c > 0x20 && c < 0x7f; }

}  // namespace

std::optional<OriginUrl> parse_origin_url(std::string_view url, std::string& error) {
  OriginUrl out;
  std::string_view rest;
  if (url.starts_with("http://")) {
    rest = url.substr(7);
  } else if (url.starts_with("https://")) {
    out.tls = true;
    out.port = 443;
    rest = url.substr(8);
  } else {
    error = "the URL must start with http:// or https://";
    return std::nullopt;
  }
  const std::size_t authority_end = rest.find_first_of("/?#");
  const std::string_view authority = rest.substr(0, authority_end);
  std::string_view tail = authority_end == std::string_view::npos ? std::string_view() : rest.substr(authority_end);
  if (const std::size_t hash = tail.find('#'); hash != std::string_view::npos) tail = tail.substr(0, hash);
  if (authority.find('@') != std::string_view::npos) {
    error = "userinfo (user@host) is not supported in the URL";
    return std::nullopt;
  }
  std::string_view host;
  std::string_view port_text;
  bool port_given = false;
  if (authority.starts_with('[')) {
    const std::size_t close = authority.find(']');
    if (close == std::string_view::npos) {
      error = "the IPv6 address in the URL has no closing ']'";
      return std::nullopt;
    }
    host = authority.substr(1, close - 1);
    const std::string_view after = authority.substr(close + 1);
    if (!after.empty() && !after.starts_with(':')) {
      error = "unexpected characters after the IPv6 address in the URL";
      return std::nullopt;
    }
    port_given = !after.empty();
    if (port_given) port_text = after.substr(1);
    if (host.empty()) {
      error = "the URL has an empty IPv6 address";
      return std::nullopt;
    }
    for (char c : host) {
      if (!is_ipv6_char(c)) {
        error = "the URL's IPv6 address has an invalid character";
        return std::nullopt;
      }
    }
  } else {
    const std::size_t colon = authority.find(':');
    host = authority.substr(0, colon);
    port_given = colon != std::string_view::npos;
    if (port_given) port_text = authority.substr(colon + 1);
    if (host.empty()) {
      error = "the URL has no host";
      return std::nullopt;
    }
    for (char c : host) {
      if (!is_host_char(c)) {
        error = "the URL's host has an invalid character";
        return std::nullopt;
      }
    }
  }
  if (port_given) {
    unsigned value = 0;
    const auto [end, status] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), value);
    if (port_text.empty() || status != std::errc() || end != port_text.data() + port_text.size() || value == 0 ||
        value > 65535) {
      error = "the URL's port must be a number from 1 to 65535";
      return std::nullopt;
    }
    out.port = static_cast<std::uint16_t>(value);
  }
  for (char c : tail) {
    if (!is_target_char(c)) {
      error = "the URL's path or query has a space, a control or a non-ASCII byte (percent-encode it)";
      return std::nullopt;
    }
  }
  out.host = std::string(host);
  out.host_header = std::string(authority);
  if (tail.empty()) {
    out.target = "/";
  } else if (tail.front() == '?') {
    out.target = "/" + std::string(tail);
  } else {
    out.target = std::string(tail);
  }
  // Why host and port, not the Host text: "h" and "h:80" are one origin.
  out.origin_key = std::string(out.tls ? "https://" : "http://") + out.host + " " + std::to_string(out.port);
  return out;
}

}  // namespace tiffany::detail
