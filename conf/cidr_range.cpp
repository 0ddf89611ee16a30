// CidrRange: inet_pton, a prefix length, and a masked comparison.
#include "conf/cidr_range.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <cstring>

namespace tiffany {
namespace {

constexpr std::array<std::uint8_t, 12> kMappedPrefix = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF};

bool matches(const std::uint8_t* a, const std::uint8_t* b, int prefix) noexcept {
  const int whole = prefix / 8;
  if (std::memcmp(a, b, static_cast<std::size_t>(whole)) != 0) return false;
  const int bits = prefix % 8;
  if (bits == 0) return true;
  const auto mask = static_cast<std::uint8_t>(0xFF << (8 - bits));
  return (a[whole] & mask) == (b[whole] & mask);
}

}  // namespace

std::optional<CidrRange> CidrRange::parse(std::string_view text) {
  const std::size_t slash = text.find('/');
  const std::string_view host = text.substr(0, slash);
  if (host.empty() || host.size() > INET6_ADDRSTRLEN) return std::nullopt;
  const std::string host_text(host);
  CidrRange range;
  range.text = std::string(text);
  int max_prefix = 128;
  in_addr v4{};
  if (inet_pton(AF_INET, host_text.c_str(), &v4) == 1) {
    std::memcpy(range.address.data(), kMappedPrefix.data(), kMappedPrefix.size());
    std::memcpy(range.address.data() + 12, &v4, 4);
    max_prefix = 32;
  } else if (inet_pton(AF_INET6, host_text.c_str(), range.address.data()) != 1) {
    return std::nullopt;
  }
  int prefix = max_prefix;
  if (slash != std::string_view::npos) {
    const std::string_view digits = text.substr(slash + 1);
    if (digits.empty() || digits.size() > 3 || (digits.size() > 1 && digits[0] == '0')) return std::nullopt;
    prefix = 0;
    for (char c : digits) {
      if (c < '0' || c > '9') return std::nullopt;
      prefix = prefix * 10 + (c - '0');
    }
    if (prefix > max_prefix) return std::nullopt;
  }
  range.prefix = max_prefix == 32 ? prefix + 96 : prefix;
  // Why refuse set host bits: "10.0.0.1/8" is usually a typo for a host or a
  // narrower block; trusting all of 10/8 by accident would be a hole.
  for (int bit = range.prefix; bit < 128; ++bit) {
    if ((range.address[static_cast<std::size_t>(bit / 8)] >> (7 - bit % 8)) & 1) return std::nullopt;
  }
  return range;
}

bool CidrRange::contains(const sockaddr_storage& peer) const noexcept {
  std::array<std::uint8_t, 16> bytes{};
  if (peer.ss_family == AF_INET) {
    std::memcpy(bytes.data(), kMappedPrefix.data(), kMappedPrefix.size());
    std::memcpy(bytes.data() + 12, &reinterpret_cast<const sockaddr_in&>(peer).sin_addr, 4);
  } else if (peer.ss_family == AF_INET6) {
    std::memcpy(bytes.data(), &reinterpret_cast<const sockaddr_in6&>(peer).sin6_addr, 16);
  } else {
    return false;
  }
  return matches(bytes.data(), address.data(), prefix);
}

}  // namespace tiffany
