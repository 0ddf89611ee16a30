// TokenBuckets: refill, take, and least-recently-seen eviction.
#include "handlers/middleware/builtin/token_buckets.hpp"

#include <algorithm>
#include <cmath>

namespace tiffany {

TokenBuckets::TokenBuckets(double rate, double burst, std::size_t max_keys)
    : rate_(rate), burst_(burst), max_keys_(max_keys) {
  buckets_.reserve(max_keys);
}

std::int64_t TokenBuckets::take(std::string_view key, Clock::time_point now) {
  auto found = buckets_.find(key);
  if (found == buckets_.end()) {
    if (buckets_.size() >= max_keys_) {
      buckets_.erase(recent_.back().key);
      recent_.pop_back();
    }
    recent_.push_front(Bucket{std::string(key), burst_, now});
    found = buckets_.emplace(recent_.front().key, recent_.begin()).first;
  } else if (found->second != recent_.begin()) {
    recent_.splice(recent_.begin(), recent_, found->second);  // iterators and the key's storage stay valid
  }
  Bucket& bucket = *found->second;
  const double elapsed = std::chrono::duration<double>(now - bucket.updated).count();
  if (elapsed > 0) {
    bucket.tokens = std::min(burst_, bucket.tokens + elapsed * rate_);
    bucket.updated = now;
  }
  if (bucket.tokens >= 1.0) {
    bucket.tokens -= 1.0;
    return 0;
  }
  const double wait = (1.0 - bucket.tokens) / rate_;
  return std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(wait)));
}

}  // namespace tiffany
