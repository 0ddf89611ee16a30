// SocketAddress: one IPv4 or IPv6 address and port, as the socket calls take it.
#pragma once

#include <sys/socket.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tiffany {

/// An IPv4 or IPv6 socket address (sockaddr_in / sockaddr_in6) by value.
/// Cheap to copy; no allocation.
class SocketAddress {
 public:
  SocketAddress() noexcept = default;
  /// Copies `length` bytes of `address` (AF_INET or AF_INET6; anything else
  /// gives an empty address).
  SocketAddress(const sockaddr* address, socklen_t length) noexcept;
  /// A numeric IPv4 ("127.0.0.1") or IPv6 ("::1", "[::1]") literal, or nullopt.
  static std::optional<SocketAddress> from_numeric(std::string_view host, std::uint16_t port = 0);

  int family() const noexcept { return storage_.ss_family; }
  bool empty() const noexcept { return length_ == 0; }
  const sockaddr* data() const noexcept { return reinterpret_cast<const sockaddr*>(&storage_); }
  socklen_t length() const noexcept { return length_; }
  std::uint16_t port() const noexcept;
  void set_port(std::uint16_t port) noexcept;
  /// "127.0.0.1" or "::1".
  std::string host() const;
  /// "127.0.0.1:80" or "[::1]:80".
  std::string to_string() const;
  friend bool operator==(const SocketAddress& a, const SocketAddress& b) noexcept;

 private:
  sockaddr_storage storage_{};
  socklen_t length_ = 0;
};

}  // namespace tiffany
