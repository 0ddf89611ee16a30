// TaskRecord: the scheduler's row for one spawned task (PYOS's Task object).
#pragma once

#include <chrono>
#include <coroutine>
#include <cstdint>

#include <tiffany/coro/intrusive_list.hpp>
#include <tiffany/coro/task.hpp>
#include <tiffany/coro/task_state.hpp>
#include <tiffany/coro/task_timer_heap.hpp>

namespace tiffany {

class CancelableWait;
class Deadline;
class Scheduler;
class TaskContext;

namespace detail {

/// One entry of the scheduler's task table. Owned by the Scheduler, which
/// recycles the storage; awaitables hold a pointer to it only while the task
/// is parked on them. The id changes on every reuse, so a stale id never
/// names a newer task.
class TaskRecord {
 public:
  TaskRecord() noexcept = default;
  TaskRecord(const TaskRecord&) = delete;
  TaskRecord& operator=(const TaskRecord&) = delete;

  TaskId id() const noexcept { return (static_cast<TaskId>(generation_) << 32) | slot_; }
  TaskState state() const noexcept { return state_; }
  int priority() const noexcept { return priority_; }
  bool cancel_pending() const noexcept { return cancel_pending_; }
  detail::TaskPromiseBase& promise() const noexcept { return *promise_; }
  /// Changes every time the task parks; lets late wake-ups (a stale timer,
  /// a completion from another thread) recognise they are out of date.
  std::uint32_t wait_sequence() const noexcept { return wait_sequence_; }
  /// Its task-local values (see ContextVar); nullptr while none were set.
  const TaskContext* context() const noexcept { return context_; }
  TaskContext*& context_slot() noexcept { return context_; }

 private:
  friend class tiffany::Scheduler;

  std::uint32_t slot_ = 0;                // index in the scheduler's table
  std::uint32_t generation_ = 0;          // bumped on reuse; part of the id
  TaskState state_ = TaskState::completed;
  std::uint8_t priority_ = 0;
  bool started_ = false;                  // has run at least once
  bool cancel_pending_ = false;           // cancel() asked; delivered at the next suspension point
  bool cancel_not_by_deadline_ = false;   // the pending cancel is (also) another's than a deadline's
  bool handle_alive_ = false;             // a JoinHandle still refers to it
  bool in_use_ = false;
  std::uint32_t wait_sequence_ = 0;
  std::coroutine_handle<> root_;          // the spawned Task's frame; owned
  detail::TaskPromiseBase* promise_ = nullptr;  // root_'s promise, type-erased
  std::coroutine_handle<> resume_point_;  // innermost coroutine to resume next
  CancelableWait* blocked_on_ = nullptr;  // what to undo if canceled while blocked
  ListLink<TaskRecord> link_;             // in a ready queue, or in the free list
  TaskRecord* joiner_ = nullptr;          // task parked in Join on this one
  Deadline* deadlines_ = nullptr;         // the innermost of its nested Deadlines, each linking the one around it
  TaskContext* context_ = nullptr;        // one share of its task-local values
  // The task's one entry in the scheduler's deadline heap: when it is checked
  // (at or before its earliest deadline: a deadline moved later keeps its
  // earlier check, which re-keys itself).
  TimerSlot deadline_check_;
  TimerSlot sleep_;  // its entry in the sleep heap while it sleeps
};

}  // namespace detail
}  // namespace tiffany
