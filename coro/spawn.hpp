// Spawn: the PYOS NewTask system call.
#pragma once

#include <coroutine>
#include <utility>

#include <tiffany/coro/scheduler.hpp>
#include <tiffany/coro/task.hpp>

namespace tiffany {

/// `auto child = co_await Spawn{make_task()};` adds the task to the back of the
/// ready queue and returns its JoinHandle. The caller keeps running: spawning
/// never suspends, so a parent can start many children before yielding.
/// (A constructor, not an aggregate: g++ 12 destroys aggregate members of
/// co_await operands twice.)
template <class T>
class Spawn {
 public:
  explicit Spawn(Task<T> task) noexcept : task_(std::move(task)) {}

  bool await_ready() const noexcept { return true; }
  void await_suspend(std::coroutine_handle<>) const noexcept {}
  JoinHandle<T> await_resume() { return Scheduler::current().spawn(std::move(task_)); }

 private:
  Task<T> task_;
};

template <class T>
Spawn(Task<T>) -> Spawn<T>;

}  // namespace tiffany
