// RetryBudget: Envoy's retry budget: retries in flight limited to a share of requests in flight.
#pragma once

#include <algorithm>
#include <cstddef>

namespace tiffany::upstream {

/// Per worker and upstream. Envoy's definition (RetryBudget in
/// envoy.config.cluster.v3.CircuitBreakers.Thresholds): the number of
/// concurrent retries may not exceed budget_percent of the active requests,
/// and never goes below min_retry_concurrency. Here:
///   limit = max(min_concurrent, active_requests * percent / 100)
/// and a retry may start while active_retries < limit. A client request counts
/// once in active_requests however many attempts it makes; a retry or a hedged
/// attempt holds one of active_retries from try_acquire_retry() until
/// release_retry().
class RetryBudget {
 public:
  RetryBudget(int percent, int min_concurrent) noexcept
      : percent_(static_cast<std::size_t>(percent)), min_concurrent_(static_cast<std::size_t>(min_concurrent)) {}

  void begin_request() noexcept { ++active_requests_; }
  void end_request() noexcept { active_requests_ -= active_requests_ > 0 ? 1 : 0; }

  /// True (and counted) when one more retry fits the budget.
  bool try_acquire_retry() noexcept {
    if (active_retries_ >= limit()) return false;
    ++active_retries_;
    return true;
  }
  void release_retry() noexcept { active_retries_ -= active_retries_ > 0 ? 1 : 0; }

  std::size_t limit() const noexcept { return std::max(min_concurrent_, active_requests_ * percent_ / 100); }
  std::size_t active_requests() const noexcept { return active_requests_; }
  std::size_t active_retries() const noexcept { return active_retries_; }

 private:
  std::size_t percent_;
  std::size_t min_concurrent_;
  std::size_t active_requests_ = 0;
  std::size_t active_retries_ = 0;
};

}  // namespace tiffany::upstream
