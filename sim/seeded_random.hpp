// SeededRandom: every random choice of a simulation run, drawn from its one seed.
#pragma once

#include <cstdint>

namespace tiffany::sim {

/// xoshiro256** seeded through splitmix64: the same seed gives the same
/// draws on every machine and every run (no std:: distribution, whose
/// results the standard leaves to the library).
class SeededRandom {
 public:
  explicit SeededRandom(std::uint64_t seed) noexcept {
    for (std::uint64_t& word : state_) word = splitmix(seed);
  }

  std::uint64_t next() noexcept {
    const std::uint64_t result = rotl(state_[1] * 5, 7) * 9;
    const std::uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = rotl(state_[3], 45);
    return result;
  }
  /// A draw in [0, bound); 0 when bound is 0. Why the high half of a
  /// 64×64 product, not a modulo: no bias worth the name, and no division.
  std::uint64_t below(std::uint64_t bound) noexcept {
    const std::uint64_t x = next();
    const std::uint64_t x_low = x & 0xffffffffULL, x_high = x >> 32;
    const std::uint64_t b_low = bound & 0xffffffffULL, b_high = bound >> 32;
    const std::uint64_t low_low = x_low * b_low;
    const std::uint64_t middle = x_high * b_low + (low_low >> 32);
    const std::uint64_t middle2 = x_low * b_high + (middle & 0xffffffffULL);
    return x_high * b_high + (middle >> 32) + (middle2 >> 32);
  }
  /// A draw in [low, high].
  std::uint64_t between(std::uint64_t low, std::uint64_t high) noexcept { return low + below(high - low + 1); }
  /// True with probability `per_million` / 1,000,000.
  bool chance(std::uint32_t per_million) noexcept { return below(1'000'000) < per_million; }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) noexcept { return (x << k) | (x >> (64 - k)); }
  static std::uint64_t splitmix(std::uint64_t& x) noexcept {
    std::uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }

  std::uint64_t state_[4];
};

}  // namespace tiffany::sim
