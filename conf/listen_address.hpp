// ListenAddress: a validated "HOST:PORT" a listener binds to.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tiffany {

/// An IP literal and port. Accepted forms: `127.0.0.1:7000`, `[::1]:7000`,
/// `localhost:7000` (means 127.0.0.1). Port 0 asks the kernel for a free port.
struct ListenAddress {
  std::string host;  // numeric IPv4 or IPv6 literal, without brackets
  std::uint16_t port = 0;
  bool ipv6 = false;

  /// The address as written back: `127.0.0.1:7000` or `[::1]:7000`.
  std::string to_string() const;
  /// nullopt when `text` is not a valid address.
  static std::optional<ListenAddress> parse(std::string_view text);
  /// The same family, host (compared as an address: "::1" is "0::1") and port.
  bool same_endpoint(const ListenAddress& other) const;
};

}  // namespace tiffany
