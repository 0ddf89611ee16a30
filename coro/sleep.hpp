// Sleep: park the calling task for a while.
#pragma once

#include <chrono>
#include <coroutine>

#include "coro/scheduler.hpp"

namespace tiffany {

/// `co_await Sleep{std::chrono::milliseconds(50)};` parks the caller until at
/// least that much time has passed. Tasks whose deadlines are equal wake in
/// the order they went to sleep. The scheduler waits in the kernel meanwhile.
class Sleep {
 public:
  explicit Sleep(std::chrono::nanoseconds duration) noexcept : duration_(duration) {}

  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> caller) const {
    Scheduler::current().sleep_current_until(Scheduler::Clock::now() + duration_, caller);
  }
  void await_resume() const noexcept {}

 private:
  std::chrono::nanoseconds duration_;
};

}  // namespace tiffany
