// SchedulerStats: the kernel's counters, for /status and metrics.
#pragma once

#include <chrono>
#include <cstdint>

namespace tiffany {

/// Counters of one scheduler. Read them on its thread (or accept a torn view).
struct SchedulerStats {
  std::uint64_t spawned = 0;
  std::uint64_t completed = 0;
  std::uint64_t failed = 0;
  std::uint64_t canceled = 0;
  std::uint64_t context_switches = 0;  ///< resumes of a task by the scheduler
  std::uint64_t polls = 0;             ///< times the scheduler asked the poller for I/O
  std::chrono::nanoseconds longest_run{0};  ///< longest stretch one task ran without suspending (if timed)
  std::uint64_t slow_runs = 0;         ///< runs longer than the slow-task threshold
};

}  // namespace tiffany
