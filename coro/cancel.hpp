// Cancel: the PYOS KillTask system call.
#pragma once

#include <coroutine>

#include <tiffany/coro/scheduler.hpp>

namespace tiffany {

/// `co_await Cancel{handle.tid()};` cancels another task (see
/// Scheduler::cancel) and returns whether it was found. Does not suspend;
/// join the task to wait until it has unwound.
class Cancel {
 public:
  explicit Cancel(TaskId task) noexcept : task_(task) {}
  bool await_ready() const noexcept { return true; }
  void await_suspend(std::coroutine_handle<>) const noexcept {}
  bool await_resume() const noexcept { return Scheduler::current().cancel(task_); }

 private:
  TaskId task_;
};

}  // namespace tiffany
