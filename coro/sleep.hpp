// Sleep: park the calling task for a while.
#pragma once

#include <chrono>
#include <coroutine>

#include <tiffany/coro/cancelable_wait.hpp>
#include <tiffany/coro/kernel.hpp>
#include <tiffany/coro/scheduler.hpp>

namespace tiffany {

/// `co_await Sleep{std::chrono::milliseconds(50)};` parks the caller until at
/// least that much time has passed (on the scheduler's clock). Tasks whose
/// deadlines are equal wake in the order they went to sleep. The scheduler
/// waits in the kernel meanwhile. Throws TaskCanceled if the caller is
/// canceled while asleep (it wakes at once).
class Sleep final : private CancelableWait {
 public:
  explicit Sleep(std::chrono::nanoseconds duration) noexcept : duration_(duration) {}

  bool await_ready() const noexcept { return detail::Kernel::current().cancel_pending(); }
  void await_suspend(std::coroutine_handle<> caller) {
    Scheduler& scheduler = Scheduler::current();
    detail::Kernel(scheduler).sleep_current_until(scheduler.now() + duration_, caller, this);
  }
  void await_resume() const { detail::Kernel::current().throw_if_canceled(); }

 private:
  void cancel_wait(detail::TaskRecord& task) noexcept override { detail::Kernel::current().cancel_sleep(task); }

  std::chrono::nanoseconds duration_;
};

}  // namespace tiffany
