// Join: the PYOS WaitTask system call.
#pragma once

#include <coroutine>
#include <utility>

#include <tiffany/coro/cancelable_wait.hpp>
#include <tiffany/coro/kernel.hpp>
#include <tiffany/coro/scheduler.hpp>

namespace tiffany {

/// `T value = co_await Join{std::move(handle)};` parks the caller until the
/// child finishes, then returns its value or rethrows its exception (a
/// canceled child gives TaskCanceled). Consumes the handle: each task is
/// joined at most once. If the caller is canceled while waiting, it gets
/// TaskCanceled and the child, now detached, keeps running.
template <class T>
class Join final : private CancelableWait {
 public:
  // Why: a constructor, not an aggregate: g++ 12 destroys aggregate members of
  // co_await operands twice (the same holds for Spawn).
  explicit Join(JoinHandle<T> child) noexcept : child_(std::move(child)) {}

  bool await_ready() const noexcept { return child_.finished() || detail::Kernel::current().cancel_pending(); }
  void await_suspend(std::coroutine_handle<> caller) noexcept {
    detail::Kernel::current().join_current_on(*child_.record(), caller, this);
  }
  T await_resume() {
    detail::Kernel::current().throw_if_canceled();
    return child_.take_result();
  }

 private:
  void cancel_wait(detail::TaskRecord& task) noexcept override {
    Scheduler& scheduler = Scheduler::current();
    detail::Kernel(scheduler).forget_joiner(*child_.record());
    detail::Kernel(scheduler).wake(task);
  }

  JoinHandle<T> child_;
};

template <class T>
Join(JoinHandle<T>) -> Join<T>;

}  // namespace tiffany
