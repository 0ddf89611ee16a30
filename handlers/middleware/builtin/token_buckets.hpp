// TokenBuckets: one token bucket per client key, in bounded memory (least recently seen evicted).
#pragma once

#include <chrono>
#include <cstddef>
#include <list>
#include <string>
#include <string_view>
#include <unordered_map>

namespace tiffany {

/// Buckets of `burst` tokens refilled at `rate` tokens a second, one per key
/// (a client address). Holds at most `max_keys` buckets: a new key past that
/// evicts the key seen longest ago (a full bucket is what it would get back).
/// Not thread-safe: one per worker.
class TokenBuckets {
 public:
  using Clock = std::chrono::steady_clock;

  TokenBuckets(double rate, double burst, std::size_t max_keys);

  /// Takes a token for `key` at `now`. Returns 0 when there was one, else
  /// how many seconds (rounded up, at least 1) until there will be.
  std::int64_t take(std::string_view key, Clock::time_point now);
  std::size_t size() const noexcept { return buckets_.size(); }

 private:
  struct Bucket {
    std::string key;
    double tokens;
    Clock::time_point updated;
  };
  double rate_;
  double burst_;
  std::size_t max_keys_;
  std::list<Bucket> recent_;  // most recently seen first
  std::unordered_map<std::string_view, std::list<Bucket>::iterator> buckets_;  // views into recent_'s keys
};

}  // namespace tiffany
