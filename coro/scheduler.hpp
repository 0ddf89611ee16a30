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
#include <utility>
#include <vector>

#include <tiffany/coro/intrusive_list.hpp>
#include <tiffany/coro/poller.hpp>
#include <tiffany/coro/remote_queue.hpp>
#include <tiffany/coro/scheduler_options.hpp>
#include <tiffany/coro/scheduler_stats.hpp>
#include <tiffany/coro/task.hpp>
#include <tiffany/coro/task_record.hpp>
#include <tiffany/coro/task_state.hpp>
#include <tiffany/coro/task_trace.hpp>

namespace tiffany {

class CancelableWait;
class Deadline;
class ManualClock;
class TaskContext;
namespace detail {
class Kernel;
}  // namespace detail
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

  /// Several schedulers on one thread, stepped in turn by a driver (the
  /// simulation's workers and peers). While one of these lives on a thread,
  /// a Scheduler (or Reactor) built there neither aborts for being the
  /// second nor makes itself current: the driver makes each current in turn
  /// with CurrentScope. Build it before the schedulers, destroy it after.
  class SharedThread {
   public:
    SharedThread() noexcept;
    ~SharedThread();
    SharedThread(const SharedThread&) = delete;
    SharedThread& operator=(const SharedThread&) = delete;
    /// True while a SharedThread lives on the calling thread.
    static bool active() noexcept;
  };

  /// Makes `scheduler` the thread's current one for the scope's life, then
  /// restores the one before (see SharedThread).
  class CurrentScope {
   public:
    explicit CurrentScope(Scheduler& scheduler) noexcept : previous_(std::exchange(tls_current_, &scheduler)) {}
    ~CurrentScope() { tls_current_ = previous_; }
    CurrentScope(const CurrentScope&) = delete;
    CurrentScope& operator=(const CurrentScope&) = delete;

   private:
    Scheduler* previous_;
  };

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
  /// True once stop() was called (until run() begins again): what a driver
  /// that steps the scheduler instead of running it looks at.
  bool stopping() const noexcept { return stop_requested_; }
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
  /// The earliest sleep or deadline, if any: when this scheduler next has
  /// work of its own. A driver of several schedulers on one virtual clock
  /// moves the clock to the earliest of theirs (run() would move it to its own).
  std::optional<Clock::time_point> next_timer() const noexcept { return next_timer_at(); }
  /// True when a task is ready to run or other threads have posted work.
  bool has_ready_work() const noexcept;

  /// PYOS KillTask. A ready, sleeping or blocked task is woken at once and sees
  /// TaskCanceled where it is suspended (a task blocked in I/O once the kernel
  /// has dropped the operation); a task that never started ends without
  /// running; the running task gets it at its next suspension point.
  /// Canceling a finished (or unknown) task does nothing.
  bool cancel(TaskId id) noexcept;

  /// Entries in the task table: unfinished tasks plus finished ones whose
  /// JoinHandle has not been consumed yet.
  std::size_t task_count() const noexcept { return live_records_; }
  /// Entries in the deadline heap: at most one per task (however often its
  /// deadline moved), none for a task that ended.
  std::size_t armed_deadlines() const noexcept { return deadlines_.size(); }
  /// Tasks asleep in Sleep (a canceled sleep leaves at once).
  std::size_t pending_sleeps() const noexcept { return sleepers_.size(); }
  /// Tasks waiting on work of other threads (offload, ExternalPromise).
  std::size_t external_waits() const noexcept { return external_waits_; }
  /// State of a task still in the table; nullopt once it is gone.
  std::optional<TaskState> state(TaskId id) const noexcept;

  const SchedulerStats& stats() const noexcept { return stats_; }
  /// The event trace, or nullptr when tracing is off.
  const TaskTrace* trace() const noexcept { return trace_.get(); }
  /// Where other threads post work for this scheduler (see ExternalPromise).
  const std::shared_ptr<RemoteQueue>& remote_queue() const noexcept { return remote_; }

  /// Replaces the default logger (stderr) of failed tasks.
  void set_failure_logger(FailureLogger logger) { failure_logger_ = std::move(logger); }
  /// Replaces the default warning (stderr) for a task that ran too long.
  void set_slow_task_logger(SlowTaskLogger logger) { slow_task_logger_ = std::move(logger); }

  /// How a deadline's cancellation fared when it moved (see detail::Kernel::withdraw_deadline_cancel).
  enum class PendingExpiry { none, withdrawn, on_its_way };

 private:
  friend class detail::Kernel;
  template <class T>
  friend class JoinHandle;
  friend std::coroutine_handle<> detail::finish_spawned_task(detail::TaskPromiseBase&) noexcept;

  void cancel(detail::TaskRecord& task) noexcept;
  detail::TaskRecord* find(TaskId id) const noexcept;
  detail::TaskRecord* current_task() const noexcept { return current_; }
  // The kernel side, reached through detail::Kernel (documented there).
  bool cancel_pending() const noexcept { return current_ != nullptr && current_->cancel_pending_; }
  void throw_if_canceled();
  void block_current(std::coroutine_handle<> resume_at, CancelableWait* wait = nullptr) noexcept;
  void wake(detail::TaskRecord& task) noexcept;
  void wake_if_waiting(detail::TaskRecord& task, std::uint32_t wait_sequence) noexcept;
  void yield_current(std::coroutine_handle<> resume_at) noexcept;
  void sleep_current_until(Clock::time_point deadline, std::coroutine_handle<> resume_at, CancelableWait* wait);
  void cancel_sleep(detail::TaskRecord& task) noexcept;
  void join_current_on(detail::TaskRecord& child, std::coroutine_handle<> resume_at, CancelableWait* wait) noexcept;
  void forget_joiner(detail::TaskRecord& child) noexcept { child.joiner_ = nullptr; }
  void release(detail::TaskRecord& task) noexcept;
  Deadline* enter_deadline(detail::TaskRecord& task, Deadline& deadline) noexcept;
  void leave_deadline(detail::TaskRecord& task, Deadline& deadline) noexcept;
  void deadline_moved(detail::TaskRecord& task, std::optional<Clock::time_point> when);
  PendingExpiry withdraw_deadline_cancel(detail::TaskRecord& task, Deadline& deadline) noexcept;
  void external_wait_began() noexcept { ++external_waits_; }
  void external_wait_ended() noexcept { --external_waits_; }

  using TaskList = IntrusiveList<detail::TaskRecord, &detail::TaskRecord::link_>;

  [[noreturn]] static void abort_without_scheduler() noexcept;
  // Why: inline, so every awaitable finds its scheduler with one TLS load;
  // visible, so a plugin built with hidden visibility binds to the same
  // variable as the server instead of getting a private (always null) copy.
  __attribute__((visibility("default"))) static inline thread_local Scheduler* tls_current_ = nullptr;

  detail::TaskRecord& adopt(std::coroutine_handle<> root, detail::TaskPromiseBase& promise, int priority);
  detail::TaskRecord& allocate_record();
  void free_record(detail::TaskRecord& task) noexcept;
  void push_ready(detail::TaskRecord& task) noexcept;
  void unlink_ready(detail::TaskRecord& task) noexcept;
  detail::TaskRecord* pop_ready() noexcept;
  void resume(detail::TaskRecord& task);
  void resume_instrumented(detail::TaskRecord& task);
  void report_slow_run(TaskId id, std::uint64_t ticks);
  void run_ready_batch();
  void fire_due_timers();
  void fire_due_deadlines(Clock::time_point time);
  /// The earliest time any of `task`'s deadlines is armed for.
  static std::optional<Clock::time_point> earliest_deadline(const detail::TaskRecord& task) noexcept;
  /// After a cancel reached its task: none of its deadlines' expiries is pending.
  static void cancel_delivered(detail::TaskRecord& task) noexcept;
  /// The earliest timer or deadline, if any.
  std::optional<Clock::time_point> next_timer_at() const noexcept;
  void wait_for_events();
  void finish_unstarted(detail::TaskRecord& task) noexcept;
  std::coroutine_handle<> on_task_finished(detail::TaskRecord& task) noexcept;
  void settle(detail::TaskRecord& task, TaskState final_state) noexcept;
  /// The time stamp of a trace event now (see TaskTrace::Stamps).
  std::uint64_t trace_stamp() const noexcept;

  SchedulerOptions options_;
  std::shared_ptr<RemoteQueue> remote_;
  std::vector<std::unique_ptr<detail::TaskRecord[]>> chunks_;  // stable storage for records
  TaskList free_records_;  // used as a stack: lowest slots first
  std::size_t live_records_ = 0;
  std::size_t unfinished_ = 0;
  std::array<TaskList, kMaxPriority + 1> ready_;
  unsigned ready_levels_ = 0;  // bit n set: ready_[n] is not empty
  std::size_t ready_count_ = 0;
  // Sleeping tasks, by wake-up time; a canceled sleep leaves at once.
  TaskTimerHeap<&detail::TaskRecord::sleep_> sleepers_;
  // Tasks with a deadline check pending: one entry per task however often
  // its deadline moves, and it leaves with the task, so none pile up.
  TaskTimerHeap<&detail::TaskRecord::deadline_check_> deadlines_;
  std::uint32_t timer_sequence_ = 0;
  std::size_t external_waits_ = 0;
  detail::TaskRecord* current_ = nullptr;
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
  JoinHandle(Scheduler& scheduler, detail::TaskRecord& record) noexcept : scheduler_(&scheduler), record_(&record) {}
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
  detail::TaskRecord* record() const noexcept { return record_; }

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
  detail::TaskRecord* record_ = nullptr;
};

template <class T>
JoinHandle<T> Scheduler::spawn(Task<T> task, int priority) {
  auto handle = task.release();
  detail::TaskRecord& record = adopt(handle, handle.promise(), priority);
  return JoinHandle<T>{*this, record};
}

}  // namespace tiffany
