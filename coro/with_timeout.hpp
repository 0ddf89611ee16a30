// with_timeout: a task's result, or TimeoutError if it takes too long.
#pragma once

#include <chrono>
#include <stdexcept>
#include <type_traits>

#include <tiffany/coro/deadline.hpp>
#include <tiffany/coro/task.hpp>

namespace tiffany {

class TimeoutError : public std::runtime_error {
 public:
  TimeoutError() : std::runtime_error("timed out") {}
};

/// Runs `task` with a deadline: its value if it finishes within `timeout`,
/// otherwise TimeoutError (the task was canceled at its wait). The task runs
/// inline, under a Deadline nested in any the caller has: an outer deadline
/// or another cancellation reaching it first propagates as it is.
template <class T>
Task<T> with_timeout(Task<T> task, std::chrono::nanoseconds timeout) {
  Deadline deadline = Deadline::after(timeout);
  Timed<T> result = co_await deadline.guard(std::move(task));
  if (result.timed_out()) throw TimeoutError{};
  if constexpr (!std::is_void_v<T>) co_return std::move(*result);
}

}  // namespace tiffany
