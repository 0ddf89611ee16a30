// HashRing: a ketama-like consistent-hash ring over an upstream's servers.
#include "client/upstream/hash_ring.hpp"

#include <algorithm>
#include <string>

namespace tiffany::upstream {

std::uint64_t hash64(std::string_view text) noexcept {
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  for (char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 0x100000001b3ULL;
  }
  hash ^= hash >> 30;
  hash *= 0xbf58476d1ce4e5b9ULL;
  hash ^= hash >> 27;
  hash *= 0x94d049bb133111ebULL;
  hash ^= hash >> 31;
  return hash;
}

HashRing::HashRing(const std::vector<std::pair<std::string, int>>& servers) {
  for (std::size_t index = 0; index < servers.size(); ++index) {
    const auto& [name, weight] = servers[index];
    // Why points are named by the server's address, not its index: adding or
    // removing a server leaves the other servers' points where they were.
    for (int point = 0; point < weight * kPointsPerWeight; ++point) {
      points_.emplace_back(hash64(name + "-" + std::to_string(point)), index);
    }
  }
  std::sort(points_.begin(), points_.end());
}

std::size_t HashRing::first_at_or_after(std::uint64_t hash) const noexcept {
  const auto it = std::lower_bound(points_.begin(), points_.end(), std::make_pair(hash, std::size_t{0}));
  return it == points_.end() ? 0 : static_cast<std::size_t>(it - points_.begin());
}

}  // namespace tiffany::upstream
