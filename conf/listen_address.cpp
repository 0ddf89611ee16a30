// ListenAddress: parsing and printing "HOST:PORT".
#include "conf/listen_address.hpp"

#include <arpa/inet.h>

#include <charconv>
#include <cstring>

namespace tiffany {

std::string ListenAddress::to_string() const { return (ipv6 ? "[" + host + "]" : host) + ":" + std::to_string(port); }

std::optional<ListenAddress> ListenAddress::parse(std::string_view text) {
  const auto colon = text.rfind(':');
  if (colon == std::string_view::npos) return std::nullopt;
  std::string_view host = text.substr(0, colon);
  const std::string_view port_text = text.substr(colon + 1);

  unsigned port = 0;
  const auto [end, error] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (port_text.empty() || error != std::errc{} || end != port_text.data() + port_text.size() || port > 65535) {
    return std::nullopt;
  }

  ListenAddress address;
  address.port = static_cast<std::uint16_t>(port);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
    address.ipv6 = true;
  } else if (host == "localhost") {
    host = "127.0.0.1";
  }
  address.host = std::string(host);
  unsigned char binary[16];
  if (inet_pton(address.ipv6 ? AF_INET6 : AF_INET, address.host.c_str(), binary) != 1) return std::nullopt;
  return address;
}

bool ListenAddress::same_endpoint(const ListenAddress& other) const {
  if (ipv6 != other.ipv6 || port != other.port) return false;
  unsigned char mine[16]{};
  unsigned char theirs[16]{};
  const int family = ipv6 ? AF_INET6 : AF_INET;
  if (inet_pton(family, host.c_str(), mine) != 1 || inet_pton(family, other.host.c_str(), theirs) != 1) {
    return host == other.host;
  }
  return std::memcmp(mine, theirs, sizeof mine) == 0;
}

}  // namespace tiffany
