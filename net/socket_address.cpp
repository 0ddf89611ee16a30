// SocketAddress: copying, parsing and printing IPv4 and IPv6 socket addresses.
#include <tiffany/net/socket_address.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <cstring>

namespace tiffany {

SocketAddress::SocketAddress(const sockaddr* address, socklen_t length) noexcept {
  const bool v4 = address != nullptr && address->sa_family == AF_INET && length >= sizeof(sockaddr_in);
  const bool v6 = address != nullptr && address->sa_family == AF_INET6 && length >= sizeof(sockaddr_in6);
  if (!v4 && !v6) return;
  length_ = v4 ? sizeof(sockaddr_in) : sizeof(sockaddr_in6);
  std::memcpy(&storage_, address, length_);
}

std::optional<SocketAddress> SocketAddress::from_numeric(std::string_view host, std::uint16_t port) {
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  if (host.empty() || host.size() >= INET6_ADDRSTRLEN) return std::nullopt;
  char text[INET6_ADDRSTRLEN] = {};
  std::memcpy(text, host.data(), host.size());
  sockaddr_in v4{};
  if (::inet_pton(AF_INET, text, &v4.sin_addr) == 1) {
    v4.sin_family = AF_INET;
    v4.sin_port = htons(port);
    return SocketAddress(reinterpret_cast<const sockaddr*>(&v4), sizeof v4);
  }
  sockaddr_in6 v6{};
  if (::inet_pton(AF_INET6, text, &v6.sin6_addr) == 1) {
    v6.sin6_family = AF_INET6;
    v6.sin6_port = htons(port);
    return SocketAddress(reinterpret_cast<const sockaddr*>(&v6), sizeof v6);
  }
  return std::nullopt;
}

std::uint16_t SocketAddress::port() const noexcept {
  if (family() == AF_INET) return ntohs(reinterpret_cast<const sockaddr_in*>(&storage_)->sin_port);
  if (family() == AF_INET6) return ntohs(reinterpret_cast<const sockaddr_in6*>(&storage_)->sin6_port);
  return 0;
}

void SocketAddress::set_port(std::uint16_t port) noexcept {
  if (family() == AF_INET) reinterpret_cast<sockaddr_in*>(&storage_)->sin_port = htons(port);
  if (family() == AF_INET6) reinterpret_cast<sockaddr_in6*>(&storage_)->sin6_port = htons(port);
}

std::string SocketAddress::host() const {
  char text[INET6_ADDRSTRLEN] = {};
  if (family() == AF_INET) {
    ::inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(&storage_)->sin_addr, text, sizeof text);
  } else if (family() == AF_INET6) {
    ::inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(&storage_)->sin6_addr, text, sizeof text);
  }
  return text;
}

std::string SocketAddress::to_string() const {
  if (family() == AF_INET6) return "[" + host() + "]:" + std::to_string(port());
  return host() + ":" + std::to_string(port());
}

bool operator==(const SocketAddress& a, const SocketAddress& b) noexcept {
  return a.length_ == b.length_ && std::memcmp(&a.storage_, &b.storage_, a.length_) == 0;
}

}  // namespace tiffany
