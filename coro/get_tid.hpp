// GetTid: the PYOS system call that tells a task its own id.
#pragma once

#include <coroutine>

#include <tiffany/coro/kernel.hpp>
#include <tiffany/coro/scheduler.hpp>

namespace tiffany {

/// `TaskId me = co_await GetTid{};` Does not suspend.
struct GetTid {
  bool await_ready() const noexcept { return true; }
  void await_suspend(std::coroutine_handle<>) const noexcept {}
  TaskId await_resume() const noexcept { return detail::Kernel::current().current_task()->id(); }
};

}  // namespace tiffany
