// TaskTimerHeap: the scheduler's timers, a min-heap of tasks in which each task knows its place.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace tiffany {

namespace detail {
class TaskRecord;
}  // namespace detail

/// A task's entry in one TaskTimerHeap: when it is due, a tie-breaker that
/// keeps equal times in FIFO order, and where it sits (kNotInHeap: nowhere).
struct TimerSlot {
  static constexpr std::uint32_t kNotInHeap = UINT32_MAX;
  std::chrono::steady_clock::time_point at{};
  // Why 32 bits: it only orders entries due at the same instant, and keeps
  // the slot at 16 bytes (task records stay within fewer cache lines).
  std::uint32_t sequence = 0;
  std::uint32_t index = kNotInHeap;

  bool in_heap() const noexcept { return index != kNotInHeap; }
};

/// A binary min-heap of tasks on (at, sequence), each task at most once,
/// found through the TimerSlot member `Slot` of its record. Indexed, so an
/// entry leaves in O(log n) the moment its wait ends (a canceled Sleep, a
/// finished task): nothing stale stays behind to pile up or to move virtual
/// time. One scheduler's thread only.
template <TimerSlot detail::TaskRecord::*Slot>
class TaskTimerHeap {
 public:
  bool empty() const noexcept { return entries_.empty(); }
  std::size_t size() const noexcept { return entries_.size(); }
  /// The earliest entry; the heap must not be empty.
  detail::TaskRecord& top() const noexcept { return *entries_.front(); }
  std::chrono::steady_clock::time_point top_at() const noexcept { return slot(*entries_.front()).at; }

  /// Adds `task` (not in the heap yet) with the time and sequence in its slot.
  void push(detail::TaskRecord& task) {
    entries_.push_back(&task);
    slot(task).index = static_cast<std::uint32_t>(entries_.size() - 1);
    place(entries_.size() - 1);
  }
  /// Restores the order after the time in `task`'s slot changed.
  void reposition(detail::TaskRecord& task) noexcept { place(slot(task).index); }
  void remove(detail::TaskRecord& task) noexcept {
    const std::size_t index = slot(task).index;
    slot(task).index = TimerSlot::kNotInHeap;
    detail::TaskRecord* last = entries_.back();
    entries_.pop_back();
    if (last == &task) return;
    entries_[index] = last;
    slot(*last).index = static_cast<std::uint32_t>(index);
    place(index);
  }

 private:
  static TimerSlot& slot(detail::TaskRecord& task) noexcept { return task.*Slot; }
  bool earlier(std::size_t a, std::size_t b) const noexcept {
    const TimerSlot& x = slot(*entries_[a]);
    const TimerSlot& y = slot(*entries_[b]);
    return x.at != y.at ? x.at < y.at : x.sequence < y.sequence;
  }
  void swap_entries(std::size_t a, std::size_t b) noexcept {
    std::swap(entries_[a], entries_[b]);
    slot(*entries_[a]).index = static_cast<std::uint32_t>(a);
    slot(*entries_[b]).index = static_cast<std::uint32_t>(b);
  }
  // Sifts the entry at `index` up or down to where it belongs.
  void place(std::size_t index) noexcept {
    while (index > 0 && earlier(index, (index - 1) / 2)) {
      swap_entries(index, (index - 1) / 2);
      index = (index - 1) / 2;
    }
    for (;;) {
      const std::size_t left = 2 * index + 1;
      if (left >= entries_.size()) return;
      std::size_t child = left;
      if (left + 1 < entries_.size() && earlier(left + 1, left)) child = left + 1;
      if (!earlier(child, index)) return;
      swap_entries(index, child);
      index = child;
    }
  }

  std::vector<detail::TaskRecord*> entries_;
};

}  // namespace tiffany
