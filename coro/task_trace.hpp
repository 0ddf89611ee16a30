// TaskTrace: a fixed-size ring of recent task events, for debugging hangs.
#pragma once

#include <cstdint>
#include <ostream>
#include <string_view>
#include <vector>

#include "coro/task_state.hpp"

namespace tiffany {

enum class TaskEvent : std::uint8_t { spawn, resume, suspend, complete, fail, cancel };

std::string_view to_string(TaskEvent event) noexcept;

/// Keeps the last `capacity` events; older ones are overwritten. Recording is
/// a few stores, cheap enough to leave on in production.
class TaskTrace {
 public:
  struct Entry {
    std::int64_t time_ns;  // scheduler clock, nanoseconds since its epoch
    TaskId task;
    TaskEvent event;
  };

  explicit TaskTrace(std::size_t capacity) : entries_(capacity) {}

  void record(std::int64_t time_ns, TaskId task, TaskEvent event) noexcept {
    if (entries_.empty()) return;
    entries_[next_ % entries_.size()] = Entry{time_ns, task, event};
    ++next_;
  }
  /// The kept events, oldest first.
  std::vector<Entry> events() const;
  /// One line per event: "<time_ns> task <id> <event>".
  void dump(std::ostream& out) const;

 private:
  std::vector<Entry> entries_;
  std::uint64_t next_ = 0;
};

}  // namespace tiffany
