// Scheduler: Tiffany's kernel. Runs tasks from a FIFO ready queue, parks them
// on timers and on the reactor, and keeps the task table (PYOS's Scheduler).
#pragma once

#include <chrono>
#include <coroutine>
#include <cstddef>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "coro/poller.hpp"
#include "coro/task.hpp"
#include "coro/task_record.hpp"
#include "coro/task_state.hpp"

namespace tiffany {

template <class T>
class JoinHandle;

/// One per thread. Not thread-safe: every member is called on the thread that
/// constructed it. While it exists it is that thread's `Scheduler::current()`,
/// which is how the syscall awaitables (`Spawn`, `Join`, `Sleep`, ...) find it.
///
/// Lifetime: destroying the scheduler destroys every task that has not
/// finished; a Poller passed in must outlive it.
class Scheduler {
 public:
  using Clock = std::chrono::steady_clock;
  using FailureLogger = std::function<void(TaskId, const std::exception_ptr&)>;

  explicit Scheduler(Poller* poller = nullptr);
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;
  ~Scheduler();

  /// The scheduler of the calling thread; aborts if there is none.
  static Scheduler& current() noexcept;

  /// Adds `task` to the task table and the back of the ready queue.
  /// Dropping the returned handle detaches the task; it keeps running.
  template <class T>
  JoinHandle<T> spawn(Task<T> task);

  /// Runs tasks until every one has finished or stop() is called. When every task is
  /// blocked it waits in the poller (the kernel), never spinning.
  void run();
  /// Makes run() return after the task now running suspends. Callable from a task.
  void stop() noexcept { stop_requested_ = true; }

  /// Entries in the task table: unfinished tasks plus finished ones whose
  /// JoinHandle has not been consumed yet.
  std::size_t task_count() const noexcept { return tasks_.size(); }
  /// State of a task that is still in the table (unfinished, or finished with
  /// a JoinHandle still holding it); nullopt once it is gone.
  std::optional<TaskState> state(TaskId id) const;
  /// The task being resumed right now; nullptr outside a task.
  TaskRecord* current_task() const noexcept { return current_; }

  /// Replaces the default logger (stderr) of failed tasks.
  void set_failure_logger(FailureLogger logger) { failure_logger_ = std::move(logger); }

  // ---- used by awaitables; `resume_at` is the coroutine that suspended ----

  /// Parks the current task until someone calls wake() on it.
  void block_current(std::coroutine_handle<> resume_at) noexcept;
  /// Moves a blocked task to the back of the ready queue.
  void wake(TaskRecord& task) noexcept;
  /// Puts the current task at the back of the ready queue.
  void yield_current(std::coroutine_handle<> resume_at) noexcept;
  /// Parks the current task until `deadline`.
  void sleep_current_until(Clock::time_point deadline, std::coroutine_handle<> resume_at);
  /// Parks the current task until `child` finishes (PYOS WaitTask).
  void join_current_on(TaskRecord& child, std::coroutine_handle<> resume_at) noexcept;
  /// Drops a JoinHandle's claim: frees a finished task, detaches a running one.
  void release(TaskRecord& task) noexcept;

 private:
  friend std::coroutine_handle<> detail::finish_spawned_task(TaskRecord&) noexcept;

  struct Timer {
    Clock::time_point deadline;
    std::uint64_t sequence;  // keeps equal deadlines in FIFO order
    TaskRecord* task;
    bool operator>(const Timer& other) const noexcept {
      return deadline != other.deadline ? deadline > other.deadline : sequence > other.sequence;
    }
  };

  TaskRecord& adopt(std::coroutine_handle<> root, detail::TaskPromiseBase& promise);
  void push_ready(TaskRecord& task) noexcept;
  TaskRecord* pop_ready() noexcept;
  void run_ready_batch();
  void fire_due_timers();
  void wait_for_events();
  std::coroutine_handle<> on_task_finished(TaskRecord& task) noexcept;
  void erase(TaskRecord& task) noexcept;

  Poller* poller_;
  std::unordered_map<TaskId, std::unique_ptr<TaskRecord>> tasks_;
  std::size_t unfinished_ = 0;
  TaskRecord* ready_head_ = nullptr;
  TaskRecord* ready_tail_ = nullptr;
  std::size_t ready_count_ = 0;
  std::vector<Timer> timers_;  // min-heap on (deadline, sequence)
  std::uint64_t timer_sequence_ = 0;
  TaskId next_id_ = 1;
  TaskRecord* current_ = nullptr;
  bool stop_requested_ = false;
  bool tearing_down_ = false;
  FailureLogger failure_logger_;
};

/// The right to collect a spawned task's result (with `Join`). Move-only.
/// Dropping it without joining detaches the task. Must not outlive its scheduler.
template <class T>
class JoinHandle {
 public:
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
  Scheduler* scheduler_;
  TaskRecord* record_;
};

template <class T>
JoinHandle<T> Scheduler::spawn(Task<T> task) {
  auto handle = task.release();
  TaskRecord& record = adopt(handle, handle.promise());
  return JoinHandle<T>{*this, record};
}

}  // namespace tiffany
