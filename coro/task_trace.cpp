// TaskTrace: reading the ring back in order.
#include <tiffany/coro/task_trace.hpp>

#include <tiffany/coro/cycle_clock.hpp>

namespace tiffany {

std::string_view to_string(TaskEvent event) noexcept {
  switch (event) {
    case TaskEvent::spawn: return "spawn";
    case TaskEvent::resume: return "resume";
    case TaskEvent::suspend: return "suspend";
    case TaskEvent::complete: return "complete";
    case TaskEvent::fail: return "fail";
    case TaskEvent::cancel: return "cancel";
  }
  return "?";
}

std::vector<TaskTrace::Entry> TaskTrace::events() const {
  std::vector<Entry> out;
  const std::uint64_t kept = next_ < entries_.size() ? next_ : entries_.size();
  // Why one reading for them all: each event converted from a clock reading
  // of its own took that reading's error (a preemption between its two
  // clocks) and moved past the next event; from one reading, stamps in order
  // give times in order, as far apart as they were.
  const CycleClock::Reading at = CycleClock::reading();
  for (std::uint64_t i = next_ - kept; i < next_; ++i) {
    Entry entry = entries_[i % entries_.size()];
    if (stamps_ == Stamps::cycle_ticks) {
      entry.time_ns = CycleClock::to_steady_ns(static_cast<std::uint64_t>(entry.time_ns), at);
    }
    out.push_back(entry);
  }
  return out;
}

void TaskTrace::dump(std::ostream& out) const {
  for (const Entry& entry : events()) {
    out << entry.time_ns << " worker " << worker_ << " task " << entry.task << ' ' << to_string(entry.event) << '\n';
  }
}

}  // namespace tiffany
