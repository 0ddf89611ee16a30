// Join: the PYOS WaitTask system call.
#pragma once

#include <coroutine>
#include <utility>

#include "coro/scheduler.hpp"

namespace tiffany {

/// `T value = co_await Join{std::move(handle)};` parks the caller until the
/// child finishes, then returns its value or rethrows its exception.
/// Consumes the handle: each task is joined at most once.
template <class T>
class Join {
 public:
  // Why: a constructor, not an aggregate: g++ 12 destroys aggregate members of
  // co_await operands twice (the same holds for Spawn).
  explicit Join(JoinHandle<T> child) noexcept : child_(std::move(child)) {}

  bool await_ready() const noexcept { return child_.finished(); }
  void await_suspend(std::coroutine_handle<> caller) noexcept {
    Scheduler::current().join_current_on(*child_.record(), caller);
  }
  T await_resume() { return child_.take_result(); }

 private:
  JoinHandle<T> child_;
};

template <class T>
Join(JoinHandle<T>) -> Join<T>;

}  // namespace tiffany
