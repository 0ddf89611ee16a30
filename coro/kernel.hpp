// detail::Kernel: the scheduler's side that awaitables use to park, wake and time tasks.
#pragma once

#include <chrono>
#include <coroutine>
#include <cstdint>
#include <optional>

#include <tiffany/coro/scheduler.hpp>

namespace tiffany::detail {

/// What an awaitable needs from the kernel (PYOS's system-call side): park
/// the current task, wake a parked one, deliver a cancellation, keep the
/// task's deadlines. Not part of the plugin API: handlers and plugins reach
/// all of this through the awaitables (`Sleep`, `Join`, futures, the I/O
/// operations), which keep the rules below; calling these directly can
/// strand a task. Same thread rule as Scheduler: only on its own thread.
/// `resume_at` is always the coroutine that suspended.
class Kernel {
 public:
  explicit Kernel(Scheduler& scheduler) noexcept : scheduler_(scheduler) {}
  /// The kernel of the calling thread's scheduler; aborts if there is none.
  static Kernel current() noexcept { return Kernel(Scheduler::current()); }

  /// The task being resumed right now; nullptr outside a task.
  detail::TaskRecord* current_task() const noexcept { return scheduler_.current_task(); }
  /// The record of a task still in the table, or nullptr.
  detail::TaskRecord* find(TaskId id) const noexcept { return scheduler_.find(id); }
  /// Scheduler::cancel by record (see there).
  void cancel(detail::TaskRecord& task) noexcept { scheduler_.cancel(task); }

  /// True if the current task has a cancellation waiting to be delivered;
  /// awaitables then skip suspending and throw from await_resume.
  bool cancel_pending() const noexcept { return scheduler_.cancel_pending(); }
  /// Delivers a pending cancellation: clears it and throws TaskCanceled.
  void throw_if_canceled() { scheduler_.throw_if_canceled(); }
  /// Parks the current task until someone calls wake() on it. `wait`, if
  /// given, is told to undo itself should the task be canceled meanwhile.
  void block_current(std::coroutine_handle<> resume_at, CancelableWait* wait = nullptr) noexcept {
    scheduler_.block_current(resume_at, wait);
  }
  /// Moves a blocked task to the back of its ready queue.
  void wake(detail::TaskRecord& task) noexcept { scheduler_.wake(task); }
  /// Wakes `task` only if it is still parked in the wait numbered `wait_sequence`.
  void wake_if_waiting(detail::TaskRecord& task, std::uint32_t wait_sequence) noexcept {
    scheduler_.wake_if_waiting(task, wait_sequence);
  }
  /// Puts the current task at the back of its ready queue.
  void yield_current(std::coroutine_handle<> resume_at) noexcept { scheduler_.yield_current(resume_at); }
  /// Parks the current task until `deadline`.
  void sleep_current_until(Scheduler::Clock::time_point deadline, std::coroutine_handle<> resume_at,
                           CancelableWait* wait) {
    scheduler_.sleep_current_until(deadline, resume_at, wait);
  }
  /// Ends a sleep early (its task was canceled): the timer goes, and the task wakes.
  void cancel_sleep(detail::TaskRecord& task) noexcept { scheduler_.cancel_sleep(task); }
  /// Parks the current task until `child` finishes (PYOS WaitTask).
  void join_current_on(detail::TaskRecord& child, std::coroutine_handle<> resume_at, CancelableWait* wait) noexcept {
    scheduler_.join_current_on(child, resume_at, wait);
  }
  /// Undoes join_current_on for a canceled joiner.
  void forget_joiner(detail::TaskRecord& child) noexcept { scheduler_.forget_joiner(child); }
  /// Drops a JoinHandle's claim: frees a finished task, detaches a running one.
  void release(detail::TaskRecord& task) noexcept { scheduler_.release(task); }

  /// Deadline support. A task's Deadlines nest (a handler's inside its
  /// connection's): each joins its task's chain when made and leaves it when
  /// destroyed; the task is canceled when the earliest armed one comes, and
  /// every one due then reads expired().
  Deadline* enter_deadline(detail::TaskRecord& task, Deadline& deadline) noexcept {
    return scheduler_.enter_deadline(task, deadline);
  }
  void leave_deadline(detail::TaskRecord& task, Deadline& deadline) noexcept {
    scheduler_.leave_deadline(task, deadline);
  }
  /// A deadline of `task` was armed or moved (`when`), or disarmed (nullopt).
  void deadline_moved(detail::TaskRecord& task, std::optional<Scheduler::Clock::time_point> when) {
    scheduler_.deadline_moved(task, when);
  }
  /// What became of the cancellation `deadline`'s expiry made, when the
  /// deadline is moved or disarmed: `withdrawn` if it had not reached the
  /// task (the operation it interrupted finished anyway, as I/O that
  /// completes despite a cancel does) and the task is the one running, so
  /// the stage ended in time; `on_its_way` if it is still to be delivered
  /// (the task is parked and may be acting on it, or another of its
  /// deadlines expired with it); `none` if it was delivered, or if another
  /// cause (a shutdown) joined it: that one stands.
  Scheduler::PendingExpiry withdraw_deadline_cancel(detail::TaskRecord& task, Deadline& deadline) noexcept {
    return scheduler_.withdraw_deadline_cancel(task, deadline);
  }

  /// Counts tasks parked on other threads (ExternalPromise), so the loop knows
  /// to wait for them instead of declaring a deadlock.
  void external_wait_began() noexcept { scheduler_.external_wait_began(); }
  void external_wait_ended() noexcept { scheduler_.external_wait_ended(); }

 private:
  Scheduler& scheduler_;
};

}  // namespace tiffany::detail
