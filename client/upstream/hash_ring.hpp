// HashRing: a ketama-like consistent-hash ring over an upstream's servers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

namespace tiffany::upstream {

/// 64-bit FNV-1a followed by a splitmix64 finaliser: FNV alone clusters on
/// short similar strings ("a:1-0", "a:1-1"); the finaliser spreads them.
std::uint64_t hash64(std::string_view text) noexcept;

class HashRing {
 public:
  static constexpr int kPointsPerWeight = 160;

  /// `servers[i]` = {name, weight}; server i gets weight * 160 points.
  explicit HashRing(const std::vector<std::pair<std::string, int>>& servers);

  /// Walks the ring clockwise from `key`'s hash; returns the first server
  /// `eligible(i)` accepts, or npos when none does. A down server's keys thus
  /// go to the next server on the ring and come back when it is eligible again.
  template <typename Eligible>
  std::size_t find(std::string_view key, Eligible&& eligible) const {
    if (points_.empty()) return npos;
    std::size_t at = first_at_or_after(hash64(key));
    for (std::size_t step = 0; step < points_.size(); ++step, at = (at + 1) % points_.size()) {
      if (eligible(points_[at].second)) return points_[at].second;
    }
    return npos;
  }

  static constexpr std::size_t npos = static_cast<std::size_t>(-1);

 private:
  std::size_t first_at_or_after(std::uint64_t hash) const noexcept;

  std::vector<std::pair<std::uint64_t, std::size_t>> points_;  // sorted by hash
};

}  // namespace tiffany::upstream
