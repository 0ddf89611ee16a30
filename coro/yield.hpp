// Yield: give up the CPU to the other ready tasks.
#pragma once

#include <coroutine>

#include <tiffany/coro/kernel.hpp>
#include <tiffany/coro/scheduler.hpp>

namespace tiffany {

/// `co_await Yield{};` moves the caller to the back of the ready queue.
/// Throws TaskCanceled if the caller was canceled.
struct Yield {
  bool await_ready() const noexcept { return detail::Kernel::current().cancel_pending(); }
  void await_suspend(std::coroutine_handle<> caller) const noexcept { detail::Kernel::current().yield_current(caller); }
  void await_resume() const { detail::Kernel::current().throw_if_canceled(); }
};

}  // namespace tiffany
