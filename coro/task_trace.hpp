// TaskTrace: a fixed-size ring of recent task events, for debugging hangs.
#pragma once

#include <cstdint>
#include <ostream>
#include <string_view>
#include <vector>

#include <tiffany/coro/task_state.hpp>

namespace tiffany {

enum class TaskEvent : std::uint8_t { spawn, resume, suspend, complete, fail, cancel };

std::string_view to_string(TaskEvent event) noexcept;

/// Keeps the last `capacity` events of one scheduler; older ones are
/// overwritten. Recording is a few stores with a stamp the scheduler already
/// read (no clock call per event), cheap enough to leave on in production.
class TaskTrace {
 public:
  /// How stamps turn into time: CycleClock ticks (converted to steady_clock
  /// nanoseconds when read back) or nanoseconds already (a ManualClock).
  enum class Stamps : std::uint8_t { cycle_ticks, nanoseconds };

  struct Entry {
    std::int64_t time_ns;  // as recorded: a stamp; from events(): nanoseconds since the clock's epoch
    TaskId task;
    TaskEvent event;
  };

  TaskTrace(std::size_t capacity, int worker, Stamps stamps) : entries_(capacity), worker_(worker), stamps_(stamps) {}

  void record(std::uint64_t stamp, TaskId task, TaskEvent event) noexcept {
    if (entries_.empty()) return;
    // Why never below the last: a thread moved to another core may read a
    // cycle counter a little behind the first core's (a VM's TSCs can
    // differ by ~100 ns), and a trace must read in order.
    if (stamp < last_stamp_) stamp = last_stamp_;
    last_stamp_ = stamp;
    entries_[next_ % entries_.size()] = Entry{static_cast<std::int64_t>(stamp), task, event};
    ++next_;
  }
  /// Events recorded since the trace began (kept or overwritten since).
  std::uint64_t recorded() const noexcept { return next_; }
  /// The event recorded `sequence`-th (from 0), its time as recorded: valid
  /// while recorded() - sequence <= the capacity (not yet overwritten).
  const Entry& recorded_at(std::uint64_t sequence) const noexcept { return entries_[sequence % entries_.size()]; }
  /// The worker whose scheduler this is (-1: none).
  int worker() const noexcept { return worker_; }
  /// The kept events, oldest first, times in nanoseconds.
  std::vector<Entry> events() const;
  /// One line per event: "<time_ns> worker <n> task <id> <event>".
  void dump(std::ostream& out) const;

 private:
  std::vector<Entry> entries_;
  std::uint64_t next_ = 0;
  std::uint64_t last_stamp_ = 0;
  int worker_;
  Stamps stamps_;
};

}  // namespace tiffany
