// ManualClock: virtual time for deterministic tests of the scheduler.
#pragma once

#include <chrono>

namespace tiffany {

/// A clock that only moves when told to. A scheduler built with one never
/// sleeps: when every task waits on a timer it jumps the clock to the next
/// deadline, so timeouts, races and cancellations run instantly and exactly.
class ManualClock {
 public:
  using time_point = std::chrono::steady_clock::time_point;

  time_point now() const noexcept { return now_; }
  void advance(std::chrono::nanoseconds by) noexcept { now_ += by; }
  void set(time_point to) noexcept { now_ = to; }

 private:
  time_point now_{std::chrono::hours(1)};  // well past the epoch, so "now - x" stays positive
};

}  // namespace tiffany
