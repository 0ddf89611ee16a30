// SchedulerOptions: how a scheduler orders, polls, times and traces its tasks.
#pragma once

#include <chrono>
#include <cstddef>

namespace tiffany {

class ManualClock;
class Poller;

enum class SchedulingPolicy {
  fifo,      ///< one ready queue, in order (PYOS)
  priority,  ///< higher-priority ready tasks run first; FIFO within a priority
};

/// Task priorities for the priority policy: 0 (lowest) to kMaxPriority.
inline constexpr int kMaxPriority = 7;
inline constexpr int kDefaultPriority = 3;

struct SchedulerOptions {
  Poller* poller = nullptr;          ///< the reactor; null for a scheduler without I/O
  ManualClock* clock = nullptr;      ///< virtual time (deterministic mode); null: steady_clock
  SchedulingPolicy policy = SchedulingPolicy::fifo;
  /// I/O is polled at least this often, so a stream of ready tasks cannot starve it.
  std::size_t max_resumes_between_polls = 64;
  /// Warn when a task runs this long without suspending; zero turns off run
  /// timing (and the longest-run counter) to keep resumes cheapest.
  std::chrono::nanoseconds slow_task_threshold{0};
  /// Events kept in the in-memory trace ring; zero turns tracing off.
  std::size_t trace_capacity = 0;
  /// The worker this scheduler serves, recorded by the trace (-1: none).
  int worker = -1;
};

}  // namespace tiffany
