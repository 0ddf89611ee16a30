// Stage timeouts: await one stage of a connection under its deadline, and count a timeout by stage.
#pragma once

#include <utility>

#include <tiffany/coro/deadline.hpp>
#include <tiffany/coro/task.hpp>
#include <tiffany/handlers/server_stats.hpp>

namespace tiffany {

/// The stages a connection waits in, each with its own timeout.
enum class TimeoutStage { header, body, write, handler, idle, handshake };

/// Counts one timeout of `stage` (tiffany_timeouts_total{stage=...}).
inline void count_timeout(TimeoutStage stage) noexcept {
  static constexpr Stat kStats[] = {Stat::timeouts_header,  Stat::timeouts_body, Stat::timeouts_write,
                                    Stat::timeouts_handler, Stat::timeouts_idle, Stat::timeouts_handshake};
  add_stat(kStats[static_cast<int>(stage)]);
}

namespace detail {
/// Deadline::guard that also counts a timeout of its stage.
template <class T>
class StageGuard {
 public:
  StageGuard(const Deadline& deadline, TimeoutStage stage, Task<T> task)
      : guard_(deadline, std::move(task)), stage_(stage) {}
  StageGuard(const StageGuard&) = delete;
  StageGuard& operator=(const StageGuard&) = delete;

  bool await_ready() const noexcept { return guard_.await_ready(); }
  template <class Parent>
  std::coroutine_handle<> await_suspend(std::coroutine_handle<Parent> parent) noexcept {
    return guard_.await_suspend(parent);
  }
  Timed<T> await_resume() {
    Timed<T> result = guard_.await_resume();
    if (result.timed_out()) count_timeout(stage_);
    return result;
  }

 private:
  DeadlineGuard<T> guard_;
  TimeoutStage stage_;
};
}  // namespace detail

/// Awaits `task` under `deadline` (armed by the caller for this stage):
/// `Timed<T>` with its value, or "timed out", counted once here by stage.
/// A cancellation that is not the deadline's is rethrown.
/// `co_await within(deadline, TimeoutStage::write, stream.write(data, size))`.
template <class T>
detail::StageGuard<T> within(const Deadline& deadline, TimeoutStage stage, Task<T> task) {
  return detail::StageGuard<T>(deadline, stage, std::move(task));
}

}  // namespace tiffany
