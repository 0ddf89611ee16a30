// CidrRange: an address block written "10.0.0.0/8" or "::1/128", and whether a peer falls in it.
#pragma once

#include <sys/socket.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tiffany {

/// IPv4 blocks are kept as IPv4-mapped IPv6 (::ffff:a.b.c.d/96+n), so an
/// IPv4 client reaching a dual-stack ([::]) listener matches them too.
struct CidrRange {
  std::array<std::uint8_t, 16> address{};  // host bits zero
  int prefix = 0;                          // 0..128, in the IPv6 form
  std::string text;                        // as written, for messages

  /// "a.b.c.d/n" (n 0..32) or "ipv6/n" (n 0..128); a bare address means a
  /// single host. nullopt if malformed or if host bits are set ("10.0.0.1/8").
  static std::optional<CidrRange> parse(std::string_view text);
  /// True when `peer` (AF_INET or AF_INET6) is inside the block.
  bool contains(const sockaddr_storage& peer) const noexcept;
};

}  // namespace tiffany
