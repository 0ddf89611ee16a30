// TaskRecord: the scheduler's row for one spawned task (PYOS's Task object).
#pragma once

#include <coroutine>

#include "coro/task.hpp"
#include "coro/task_state.hpp"

namespace tiffany {

/// One entry of the scheduler's task table. Owned by the Scheduler; awaitables
/// hold a pointer to it only while the task is parked on them.
class TaskRecord {
 public:
  TaskRecord(TaskId id, std::coroutine_handle<> root, detail::TaskPromiseBase& promise) noexcept
      : id_(id), root_(root), promise_(&promise), resume_point_(root) {}
  TaskRecord(const TaskRecord&) = delete;
  TaskRecord& operator=(const TaskRecord&) = delete;
  ~TaskRecord() { root_.destroy(); }

  TaskId id() const noexcept { return id_; }
  TaskState state() const noexcept { return state_; }
  detail::TaskPromiseBase& promise() const noexcept { return *promise_; }

 private:
  friend class Scheduler;

  TaskId id_;
  TaskState state_ = TaskState::ready;
  std::coroutine_handle<> root_;          // the spawned Task's frame; owned
  detail::TaskPromiseBase* promise_;      // root_'s promise, type-erased
  std::coroutine_handle<> resume_point_;  // innermost coroutine to resume next
  TaskRecord* next_ready_ = nullptr;      // intrusive FIFO link
  TaskRecord* joiner_ = nullptr;          // task parked in Join on this one
  bool handle_alive_ = true;              // a JoinHandle still refers to it
};

}  // namespace tiffany
