// Yield: give up the CPU to the other ready tasks.
#pragma once

#include <coroutine>

#include "coro/scheduler.hpp"

namespace tiffany {

/// `co_await Yield{};` moves the caller to the back of the ready queue.
/// Throws TaskCanceled if the caller was canceled.
struct Yield {
  bool await_ready() const noexcept { return Scheduler::current().cancel_pending(); }
  void await_suspend(std::coroutine_handle<> caller) const noexcept { Scheduler::current().yield_current(caller); }
  void await_resume() const { Scheduler::current().throw_if_canceled(); }
};

}  // namespace tiffany
