// The states a scheduler task moves through, PYOS-style.
#pragma once

#include <cstdint>
#include <string_view>

namespace tiffany {

/// Scheduler-wide task identifier; never reused within one scheduler.
using TaskId = std::uint64_t;

enum class TaskState : std::uint8_t {
  ready,      ///< in the ready queue, waiting for its turn
  running,    ///< being resumed right now
  blocked,    ///< parked on a syscall: I/O, Sleep, Join
  completed,  ///< returned normally
  failed,     ///< ended with an exception
  canceled,   ///< stopped before it could finish
};

constexpr std::string_view to_string(TaskState state) noexcept {
  switch (state) {
    case TaskState::ready: return "ready";
    case TaskState::running: return "running";
    case TaskState::blocked: return "blocked";
    case TaskState::completed: return "completed";
    case TaskState::failed: return "failed";
    case TaskState::canceled: return "canceled";
  }
  return "unknown";
}

constexpr bool is_finished(TaskState state) noexcept {
  return state == TaskState::completed || state == TaskState::failed || state == TaskState::canceled;
}

}  // namespace tiffany
