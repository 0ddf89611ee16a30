// with_timeout: a task's result, or TimeoutError if it takes too long.
#pragma once

#include <chrono>
#include <stdexcept>
#include <vector>

#include "coro/race.hpp"
#include "coro/sleep.hpp"

namespace tiffany {

class TimeoutError : public std::runtime_error {
 public:
  TimeoutError() : std::runtime_error("timed out") {}
};

namespace detail {
template <class T>
Task<T> fail_after(std::chrono::nanoseconds timeout) {
  co_await Sleep{timeout};
  throw TimeoutError{};
}

inline Task<bool> finished(Task<void> task) {
  co_await std::move(task);
  co_return true;
}
}  // namespace detail

/// Runs `task` with a deadline: its value if it finishes within `timeout`,
/// otherwise TimeoutError, and the task is canceled.
template <class T>
Task<T> with_timeout(Task<T> task, std::chrono::nanoseconds timeout) {
  std::vector<Task<T>> contenders;
  contenders.push_back(std::move(task));
  contenders.push_back(detail::fail_after<T>(timeout));
  RaceResult<T> result = co_await race(std::move(contenders));
  co_return std::move(result.value);
}

/// with_timeout for a task without a value.
inline Task<void> with_timeout(Task<void> task, std::chrono::nanoseconds timeout) {
  (void)co_await with_timeout(detail::finished(std::move(task)), timeout);
}

}  // namespace tiffany
