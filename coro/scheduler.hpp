// Scheduler: Tiffany's kernel. Runs tasks from a ready queue, parks them on
// timers, the reactor and each other, cancels them, and keeps the task table
// (PYOS's Scheduler).
#pragma once

#include <array>
#include <chrono>
#include <coroutine>
#include <cstddef>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "coro/intrusive_list.hpp"
#include "coro/poller.hpp"
#include "coro/remote_queue.hpp"
#include "coro/scheduler_options.hpp"
#include "coro/scheduler_stats.hpp"
#include "coro/task.hpp"
#include "coro/task_record.hpp"
#include "coro/task_state.hpp"
#include "coro/task_trace.hpp"

namespace tiffany {

class CancelableWait;
class Deadline;
class ManualClock;
class TaskContext;
template <class T>
class JoinHandle;

/// One per thread. Not thread-safe: every member is called on the thread that
/// constructed it, except through remote_queue(). While it exists it is that
/// thread's `Scheduler::current()`, which is how the syscall awaitables
/// (`Spawn`, `Join`, `Sleep`, ...) find it.
///
/// Lifetime: destroying the scheduler destroys every task that has not
/// finished; a Poller or ManualClock passed in must outlive it.
class Scheduler {
 public:
  using Clock = std::chrono::steady_clock;
  using FailureLogger = std::function<void(TaskId, const std::exception_ptr&)>;
  /// Told of a run longer than the slow-task threshold: the task, how long it
  /// ran, and its task-local values (e.g. which request it served; may be
  /// null), valid during the call even if the task has just finished.
  using SlowTaskLogger = std::function<void(TaskId, std::chrono::nanoseconds, const TaskContext*)>;

  explicit Scheduler(Poller* poller = nullptr);
  explicit Scheduler(const SchedulerOptions& options);
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;
  ~Scheduler();

  /// The scheduler of the calling thread; aborts if there is none.
  static Scheduler& current() noexcept {
    if (tls_current_ == nullptr) abort_without_scheduler();
    return *tls_current_;
  }
  static Scheduler* current_or_null() noexcept { return tls_current_; }

  /// Adds `task` to the task table and the back of the ready queue (of its
  /// priority, under the priority policy). Dropping the returned handle
  /// detaches the task; it keeps running.
  template <class T>
  JoinHandle<T> spawn(Task<T> task, int priority = kDefaultPriority);

  /// Runs tasks until every one has finished or stop() is called. When every
  /// task is blocked it waits in the poller (the kernel), never spinning; with
  /// a ManualClock it jumps virtual time to the next timer instead.
  void run();
  /// Makes run() return after the task now running suspends. Callable from a task.
  void stop() noexcept { stop_requested_ = true; }
  /// Deterministic stepping: resumes the first ready task; false if none.
  bool step();
  /// Resumes ready tasks (and runs posted work, and fires due timers) until
  /// none is ready; never waits.
  void run_until_idle();
  /// ManualClock only: moves virtual time by `by`, firing timers in deadline
  /// order, and runs until idle after each.
  void advance(std::chrono::nanoseconds by);
  /// The scheduler's time: the ManualClock's if it has one.
  Clock::time_point now() const noexcept;

  /// PYOS KillTask. A ready, sleeping or blocked task is woken at once and sees
  /// TaskCanceled where it is suspended (a task blocked in I/O once the kernel
  /// has dropped the operation); a task that never started ends without
  /// running; the running task gets it at its next suspension point.
  /// Canceling a finished (or unknown) task does nothing.
  void cancel(TaskRecord& task) noexcept;
  bool cancel(TaskId id) noexcept;

  /// Entries in the task table: unfinished tasks plus finished ones whose
  /// JoinHandle has not been consumed yet.
  std::size_t task_count() const noexcept { return live_records_; }
  /// Entries in the deadline heap: at most one per task (however often its
  /// deadline moved), none for a task that ended.
  std::size_t armed_deadlines() const noexcept { return deadlines_.size(); }
  /// Tasks asleep in Sleep (a canceled sleep leaves at once).
  std::size_t pending_sleeps() const noexcept { return sleepers_.size(); }
  /// State of a task still in the table; nullopt once it is gone.
  std::optional<TaskState> state(TaskId id) const noexcept;
  /// The record of a task still in the table, or nullptr.
  TaskRecord* find(TaskId id) const noexcept;
  /// The task being resumed right now; nullptr outside a task.
  TaskRecord* current_task() const noexcept { return current_; }

  const SchedulerStats& stats() const noexcept { return stats_; }
  /// The event trace, or nullptr when tracing is off.
  const TaskTrace* trace() const noexcept { return trace_.get(); }
  /// Where other threads post work for this scheduler (see ExternalPromise).
  const std::shared_ptr<RemoteQueue>& remote_queue() const noexcept { return remote_; }

  /// Replaces the default logger (stderr) of failed tasks.
  void set_failure_logger(FailureLogger logger) { failure_logger_ = std::move(logger); }
  /// Replaces the default warning (stderr) for a task that ran too long.
  void set_slow_task_logger(SlowTaskLogger logger) { slow_task_logger_ = std::move(logger); }

  // ---- used by awaitables; `resume_at` is the coroutine that suspended ----

  /// True if the current task has a cancellation waiting to be delivered;
  /// awaitables then skip suspending and throw from await_resume.
  bool cancel_pending() const noexcept { return current_ != nullptr && current_->cancel_pending_; }
  /// Delivers a pending cancellation: clears it and throws TaskCanceled.
  void throw_if_canceled();
  /// Parks the current task until someone calls wake() on it. `wait`, if
  /// given, is told to undo itself should the task be canceled meanwhile.
  void block_current(std::coroutine_handle<> resume_at, CancelableWait* wait = nullptr) noexcept;
  /// Moves a blocked task to the back of its ready queue.
  void wake(TaskRecord& task) noexcept;
  /// Wakes `task` only if it is still parked in the wait numbered `wait_sequence`.
  void wake_if_waiting(TaskRecord& task, std::uint32_t wait_sequence) noexcept;
  /// Puts the current task at the back of its ready queue.
  void yield_current(std::coroutine_handle<> resume_at) noexcept;
  /// Parks the current task until `deadline`.
  void sleep_current_until(Clock::time_point deadline, std::coroutine_handle<> resume_at, CancelableWait* wait);
  /// Ends a sleep early (its task was canceled): the timer goes, and the task wakes.
  void cancel_sleep(TaskRecord& task) noexcept;
  /// Parks the current task until `child` finishes (PYOS WaitTask).
  void join_current_on(TaskRecord& child, std::coroutine_handle<> resume_at, CancelableWait* wait) noexcept;
  /// Undoes join_current_on for a canceled joiner.
  void forget_joiner(TaskRecord& child) noexcept { child.joiner_ = nullptr; }
  /// Drops a JoinHandle's claim: frees a finished task, detaches a running one.
  void release(TaskRecord& task) noexcept;
  /// Deadline support. A task's Deadlines nest (a handler's inside its
  /// connection's): each joins its task's chain when made and leaves it when
  /// destroyed; the task is canceled when the earliest armed one comes, and
  /// every one due then reads expired().
  Deadline* enter_deadline(TaskRecord& task, Deadline& deadline) noexcept;
  void leave_deadline(TaskRecord& task, Deadline& deadline) noexcept;
  /// A deadline of `task` was armed or moved (`when`), or disarmed (nullopt).
  void deadline_moved(TaskRecord& task, std::optional<Clock::time_point> when);
  /// What became of the cancellation `deadline`'s expiry made, when the
  /// deadline is moved or disarmed: `withdrawn` if it had not reached the
  /// task (the operation it interrupted finished anyway, as I/O that
  /// completes despite a cancel does) and the task is the one running, so
  /// the stage ended in time; `on_its_way` if it is still to be delivered
  /// (the task is parked and may be acting on it, or another of its
  /// deadlines expired with it); `none` if it was delivered, or if another
  /// cause (a shutdown) joined it: that one stands.
  enum class PendingExpiry { none, withdrawn, on_its_way };
  PendingExpiry withdraw_deadline_cancel(TaskRecord& task, Deadline& deadline) noexcept;
  /// Counts tasks parked on other threads (ExternalPromise), so the loop knows
  /// to wait for them instead of declaring a deadlock.
  void external_wait_began() noexcept { ++external_waits_; }
  void external_wait_ended() noexcept { --external_waits_; }

 private:
  friend std::coroutine_handle<> detail::finish_spawned_task(detail::TaskPromiseBase&) noexcept;

  using TaskList = IntrusiveList<TaskRecord, &TaskRecord::link_>;

  [[noreturn]] static void abort_without_scheduler() noexcept;
  // Why: inline, so every awaitable finds its scheduler with one TLS load;
  // visible, so a plugin built with hidden visibility binds to the same
  // variable as the server instead of getting a private (always null) copy.
  __attribute__((visibility("default"))) static inline thread_local Scheduler* tls_current_ = nullptr;

  TaskRecord& adopt(std::coroutine_handle<> root, detail::TaskPromiseBase& promise, int priority);
  TaskRecord& allocate_record();
  void free_record(TaskRecord& task) noexcept;
  void push_ready(TaskRecord& task) noexcept;
  void unlink_ready(TaskRecord& task) noexcept;
  TaskRecord* pop_ready() noexcept;
  void resume(TaskRecord& task);
  void resume_instrumented(TaskRecord& task);
  void report_slow_run(TaskId id, std::uint64_t ticks);
  void run_ready_batch();
  void fire_due_timers();
  void fire_due_deadlines(Clock::time_point time);
  /// The earliest time any of `task`'s deadlines is armed for.
  static std::optional<Clock::time_point> earliest_deadline(const TaskRecord& task) noexcept;
  /// After a cancel reached its task: none of its deadlines' expiries is pending.
  static void cancel_delivered(TaskRecord& task) noexcept;
  /// The earliest timer or deadline, if any.
  std::optional<Clock::time_point> next_timer_at() const noexcept;
  void wait_for_events();
  void finish_unstarted(TaskRecord& task) noexcept;
  std::coroutine_handle<> on_task_finished(TaskRecord& task) noexcept;
  void settle(TaskRecord& task, TaskState final_state) noexcept;
  /// The time stamp of a trace event now (see TaskTrace::Stamps).
  std::uint64_t trace_stamp() const noexcept;

  SchedulerOptions options_;
  std::shared_ptr<RemoteQueue> remote_;
  std::vector<std::unique_ptr<TaskRecord[]>> chunks_;  // stable storage for records
  TaskList free_records_;  // used as a stack: lowest slots first
  std::size_t live_records_ = 0;
  std::size_t unfinished_ = 0;
  std::array<TaskList, kMaxPriority + 1> ready_;
  unsigned ready_levels_ = 0;  // bit n set: ready_[n] is not empty
  std::size_t ready_count_ = 0;
  // Sleeping tasks, by wake-up time; a canceled sleep leaves at once.
  TaskTimerHeap<&TaskRecord::sleep_> sleepers_;
  // Tasks with a deadline check pending: one entry per task however often
  // its deadline moves, and it leaves with the task, so none pile up.
  TaskTimerHeap<&TaskRecord::deadline_check_> deadlines_;
  std::uint32_t timer_sequence_ = 0;
  std::size_t external_waits_ = 0;
  TaskRecord* current_ = nullptr;
  bool stop_requested_ = false;
  bool tearing_down_ = false;
  SchedulerStats stats_;
  std::unique_ptr<TaskTrace> trace_;
  FailureLogger failure_logger_;
  SlowTaskLogger slow_task_logger_;
  std::uint64_t slow_ticks_ = 0;          // the slow-task threshold in CycleClock ticks; 0: off
  std::uint64_t longest_run_ticks_ = 0;
  std::uint64_t stamp_ = 0;               // the last CycleClock reading (a run's start or end)
  std::optional<TaskEvent> finished_event_;  // how the running task ended, if it did
  TaskContext* finished_context_ = nullptr;  // the context of the task that ended in this run
};

/// The right to collect a spawned task's result (with `Join`). Move-only.
/// Dropping it without joining detaches the task. Must not outlive its scheduler.
template <class T>
class JoinHandle {
 public:
  JoinHandle() noexcept = default;
  JoinHandle(Scheduler& scheduler, TaskRecord& record) noexcept : scheduler_(&scheduler), record_(&record) {}
  JoinHandle(JoinHandle&& other) noexcept
      : scheduler_(other.scheduler_), record_(std::exchange(other.record_, nullptr)) {}
  JoinHandle& operator=(JoinHandle&& other) noexcept {
    if (this != &other) {
      reset();
      scheduler_ = other.scheduler_;
      record_ = std::exchange(other.record_, nullptr);
    }
    return *this;
  }
  ~JoinHandle() { reset(); }

  TaskId tid() const noexcept { return record_ ? record_->id() : 0; }
  bool finished() const noexcept { return record_ && is_finished(record_->state()); }
  TaskRecord* record() const noexcept { return record_; }

  /// Cancels the task (see Scheduler::cancel); the handle stays joinable.
  void cancel() noexcept {
    if (record_ != nullptr) scheduler_->cancel(*record_);
  }

  /// The finished task's value, or its exception rethrown. Consumes the handle.
  T take_result() {
    auto& promise = static_cast<detail::TaskPromise<T>&>(record_->promise());
    struct ReleaseOnExit {
      JoinHandle* self;
      ~ReleaseOnExit() { self->reset(); }
    } release{this};
    return promise.result();
  }

  /// Detaches the task explicitly.
  void reset() noexcept {
    if (record_ != nullptr) scheduler_->release(*std::exchange(record_, nullptr));
  }

 private:
  Scheduler* scheduler_ = nullptr;
  TaskRecord* record_ = nullptr;
};

template <class T>
JoinHandle<T> Scheduler::spawn(Task<T> task, int priority) {
  auto handle = task.release();
  TaskRecord& record = adopt(handle, handle.promise(), priority);
  return JoinHandle<T>{*this, record};
}

}  // namespace tiffany
