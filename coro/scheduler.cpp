// Scheduler: the run loop, ready queues, timers, cancellation and the task table.
#include <tiffany/coro/scheduler.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include <tiffany/coro/cancelable_wait.hpp>
#include <tiffany/coro/cycle_clock.hpp>
#include <tiffany/coro/deadline.hpp>
#include <tiffany/coro/exception_message.hpp>
#include <tiffany/coro/manual_clock.hpp>
#include <tiffany/coro/task_canceled.hpp>
#include <tiffany/coro/task_context.hpp>

#include "coro/engine/worker_local.hpp"
#include "coro/internal/ticked_steady_clock.hpp"

namespace tiffany {
namespace {

constexpr std::size_t kRecordsPerChunk = 256;

void log_failure_to_stderr(TaskId id, const std::exception_ptr& error) {
  std::fprintf(stderr, "tiffany: task %llu failed: %s\n", static_cast<unsigned long long>(id),
               exception_message(error).c_str());
}

void log_slow_task_to_stderr(TaskId id, std::chrono::nanoseconds ran, const TaskContext*) {
  std::fprintf(stderr, "tiffany: warning: task %llu ran %.3f ms without suspending (did it forget to yield?)\n",
               static_cast<unsigned long long>(id), std::chrono::duration<double, std::milli>(ran).count());
}

bool is_cancellation(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const TaskCanceled&) {
    return true;
  } catch (...) {
    return false;
  }
}

}  // namespace

namespace detail {
std::coroutine_handle<> finish_spawned_task(TaskPromiseBase& root) noexcept {
  Scheduler* scheduler = Scheduler::current_or_null();
  detail::TaskRecord* running = scheduler != nullptr ? scheduler->current_task() : nullptr;
  if (running == nullptr || &running->promise() != &root) return std::noop_coroutine();
  return scheduler->on_task_finished(*running);
}
}  // namespace detail

Scheduler::Scheduler(Poller* poller) : Scheduler(SchedulerOptions{.poller = poller}) {}

Scheduler::Scheduler(const SchedulerOptions& options)
    : options_(options),
      remote_(std::make_shared<RemoteQueue>(options.poller)),
      failure_logger_(log_failure_to_stderr),
      slow_task_logger_(log_slow_task_to_stderr) {
  if (tls_current_ != nullptr && !SharedThread::active()) {
    std::fputs("tiffany: a second Scheduler on one thread\n", stderr);
    std::abort();
  }
  options_.max_resumes_between_polls = std::max<std::size_t>(options_.max_resumes_between_polls, 1);
  if (options_.trace_capacity > 0) {
    trace_ = std::make_unique<TaskTrace>(options_.trace_capacity, options_.worker,
                                         options_.clock != nullptr ? TaskTrace::Stamps::nanoseconds
                                                                   : TaskTrace::Stamps::cycle_ticks);
  }
  if (options_.slow_task_threshold.count() > 0) {
    slow_ticks_ = std::max<std::uint64_t>(CycleClock::to_ticks(options_.slow_task_threshold), 1);
  }
  stamp_ = CycleClock::now();
  if (!SharedThread::active()) tls_current_ = this;
}

Scheduler::~Scheduler() {
  // Why: destroying a frame runs its awaiters' destructors, which may cancel
  // I/O and drop JoinHandles; tearing_down_ makes those wake()/release()
  // calls no-ops so nothing touches a record that is being freed.
  tearing_down_ = true;
  remote_->close();
  for (auto& chunk : chunks_) {
    for (std::size_t i = 0; i < kRecordsPerChunk; ++i) {
      detail::TaskRecord& record = chunk[i];
      if (record.in_use_ && record.root_) detail::TaskPromiseBase::destroy_chain(record.root_, *record.promise_);
      if (record.in_use_) TaskContext::release(std::exchange(record.context_, nullptr));
    }
  }
  if (tls_current_ == this) tls_current_ = nullptr;
  detail::end_worker_locals(this);
}

namespace {
thread_local int t_shared_thread_scopes = 0;
}  // namespace

Scheduler::SharedThread::SharedThread() noexcept { ++t_shared_thread_scopes; }
Scheduler::SharedThread::~SharedThread() { --t_shared_thread_scopes; }
bool Scheduler::SharedThread::active() noexcept { return t_shared_thread_scopes > 0; }

bool Scheduler::has_ready_work() const noexcept { return ready_count_ > 0 || remote_->has_work(); }

void Scheduler::abort_without_scheduler() noexcept {
  std::fputs("tiffany: no Scheduler on this thread\n", stderr);
  std::abort();
}

Scheduler::Clock::time_point Scheduler::now() const noexcept {
  return options_.clock != nullptr ? options_.clock->now() : detail::ticked_steady_now();
}

std::uint64_t Scheduler::trace_stamp() const noexcept {
  if (options_.clock != nullptr) return static_cast<std::uint64_t>(options_.clock->now().time_since_epoch().count());
  // Why the resume's stamp: inside a task the event takes the reading made
  // when its run began instead of a clock call of its own.
  return current_ != nullptr ? stamp_ : CycleClock::now();
}

// ---- the task table ----

detail::TaskRecord& Scheduler::allocate_record() {
  if (free_records_.empty()) {
    const auto first_slot = static_cast<std::uint32_t>(chunks_.size() * kRecordsPerChunk);
    chunks_.push_back(std::make_unique<detail::TaskRecord[]>(kRecordsPerChunk));
    detail::TaskRecord* records = chunks_.back().get();
    for (std::size_t i = kRecordsPerChunk; i-- > 0;) {  // lowest slots first
      records[i].slot_ = first_slot + static_cast<std::uint32_t>(i);
      records[i].generation_ = 1;  // ids are never 0
      free_records_.push_front(records[i]);
    }
  }
  detail::TaskRecord& record = *free_records_.pop_front();
  ++live_records_;
  return record;
}

void Scheduler::free_record(detail::TaskRecord& task) noexcept {
  if (task.root_) detail::TaskPromiseBase::destroy_chain(task.root_, *task.promise_);
  if (task.deadline_check_.in_heap()) deadlines_.remove(task);
  if (task.sleep_.in_heap()) sleepers_.remove(task);
  if (&task == current_ && slow_ticks_ != 0) {
    // Why kept: the resume that is ending may still report this task (a slow
    // run is logged with its context once the resume returns).
    TaskContext::release(std::exchange(finished_context_, std::exchange(task.context_, nullptr)));
  } else {
    TaskContext::release(std::exchange(task.context_, nullptr));
  }
  task.deadlines_ = nullptr;
  task.in_use_ = false;
  task.promise_ = nullptr;
  ++task.generation_;  // the old id no longer names this slot
  free_records_.push_front(task);
  --live_records_;
}

detail::TaskRecord* Scheduler::find(TaskId id) const noexcept {
  const auto slot = static_cast<std::uint32_t>(id & 0xffffffffu);
  const auto generation = static_cast<std::uint32_t>(id >> 32);
  if (slot >= chunks_.size() * kRecordsPerChunk) return nullptr;
  detail::TaskRecord& record = chunks_[slot / kRecordsPerChunk][slot % kRecordsPerChunk];
  return record.in_use_ && record.generation_ == generation ? &record : nullptr;
}

std::optional<TaskState> Scheduler::state(TaskId id) const noexcept {
  const detail::TaskRecord* record = find(id);
  if (record == nullptr) return std::nullopt;
  return record->state_;
}

detail::TaskRecord& Scheduler::adopt(std::coroutine_handle<> root, detail::TaskPromiseBase& promise, int priority) {
  detail::TaskRecord& task = allocate_record();
  task.in_use_ = true;
  task.root_ = root;
  task.promise_ = &promise;
  task.resume_point_ = root;
  task.priority_ = static_cast<std::uint8_t>(std::clamp(priority, 0, kMaxPriority));
  task.started_ = false;
  task.cancel_pending_ = false;
  task.handle_alive_ = true;
  task.blocked_on_ = nullptr;
  task.joiner_ = nullptr;
  task.deadlines_ = nullptr;
  // A snapshot of the spawner's task-local values (shared until either writes).
  task.context_ = current_ != nullptr ? TaskContext::share(current_->context_) : nullptr;
  ++unfinished_;
  ++stats_.spawned;
  if (trace_) trace_->record(trace_stamp(), task.id(), TaskEvent::spawn);
  push_ready(task);
  return task;
}

// ---- ready queues (intrusive, doubly linked: O(1) removal on cancel) ----

void Scheduler::push_ready(detail::TaskRecord& task) noexcept {
  task.state_ = TaskState::ready;
  const unsigned level = options_.policy == SchedulingPolicy::priority ? task.priority_ : 0;
  ready_[level].push_back(task);
  ready_levels_ |= 1u << level;
  ++ready_count_;
}

void Scheduler::unlink_ready(detail::TaskRecord& task) noexcept {
  const unsigned level = options_.policy == SchedulingPolicy::priority ? task.priority_ : 0;
  TaskList& queue = ready_[level];
  queue.remove(task);
  if (queue.empty()) ready_levels_ &= ~(1u << level);
  --ready_count_;
}

detail::TaskRecord* Scheduler::pop_ready() noexcept {
  if (ready_levels_ == 0) return nullptr;
  const int highest = 31 - __builtin_clz(ready_levels_);
  detail::TaskRecord* task = ready_[static_cast<std::size_t>(highest)].front();
  unlink_ready(*task);
  return task;
}

// ---- the loop ----

void Scheduler::run() {
  stop_requested_ = false;
  while (!stop_requested_ && unfinished_ > 0) {
    run_ready_batch();
    if (stop_requested_ || unfinished_ == 0) break;
    wait_for_events();
    fire_due_timers();
  }
}

// Resumes up to max_resumes_between_polls of the tasks that were ready when
// the turn began; tasks made ready meanwhile wait until I/O has been polled.
void Scheduler::run_ready_batch() {
  if (remote_->has_work()) remote_->drain();
  std::size_t budget = std::min(ready_count_, options_.max_resumes_between_polls);
  while (budget-- > 0 && !stop_requested_) {
    detail::TaskRecord* task = pop_ready();
    if (task == nullptr) break;
    resume(*task);
  }
}

void Scheduler::resume(detail::TaskRecord& task) {
  if (task.cancel_pending_ && !task.started_) {  // canceled before it ever ran
    finish_unstarted(task);
    return;
  }
  task.state_ = TaskState::running;
  task.started_ = true;
  current_ = &task;
  ++stats_.context_switches;
  if (slow_ticks_ == 0 && !trace_) {
    task.resume_point_.resume();
    current_ = nullptr;
    return;
  }
  resume_instrumented(task);
}

// Why apart: the bare path above stays a handful of instructions. Here every
// run is timed with one cycle-counter read at each end (no clock_gettime),
// and the trace reuses those readings instead of reading a clock per event.
void Scheduler::resume_instrumented(detail::TaskRecord& task) {
  const TaskId id = task.id();  // `task` may be freed by the time the run ends
  finished_event_.reset();
  const std::uint64_t started = CycleClock::now();
  stamp_ = started;
  if (trace_) trace_->record(trace_stamp(), id, TaskEvent::resume);
  task.resume_point_.resume();
  const std::uint64_t ended = CycleClock::now();
  stamp_ = ended;
  if (trace_) trace_->record(trace_stamp(), id, finished_event_.value_or(TaskEvent::suspend));
  current_ = nullptr;
  if (slow_ticks_ != 0) {
    const std::uint64_t ran = ended - started;
    if (ran > longest_run_ticks_) {
      longest_run_ticks_ = ran;
      stats_.longest_run = CycleClock::to_duration(ran);
    }
    if (ran > slow_ticks_) report_slow_run(id, ran);
    TaskContext::release(std::exchange(finished_context_, nullptr));
  }
}

void Scheduler::report_slow_run(TaskId id, std::uint64_t ticks) {
  ++stats_.slow_runs;
  if (!slow_task_logger_) return;
  const detail::TaskRecord* still = find(id);
  slow_task_logger_(id, CycleClock::to_duration(ticks), still != nullptr ? still->context_ : finished_context_);
}

void Scheduler::wait_for_events() {
  const bool runnable = ready_count_ > 0 || remote_->has_work();
  std::optional<std::chrono::nanoseconds> timeout;  // nullopt: until something happens
  if (runnable) {
    timeout = std::chrono::nanoseconds::zero();
  }
  const std::optional<Clock::time_point> next_timer = next_timer_at();
  if (!runnable && next_timer) timeout = std::max(std::chrono::nanoseconds::zero(), *next_timer - now());
  Poller* poller = options_.poller;
  const bool io_pending = poller != nullptr && poller->has_pending();
  if (!runnable && !next_timer && !io_pending && external_waits_ == 0) {
    throw std::logic_error("tiffany: every task is blocked and nothing can wake them (deadlock)");
  }
  ++stats_.polls;
  if (options_.clock != nullptr) {
    // Virtual time never sleeps: let I/O complete, and if nothing else can
    // happen, jump to the next deadline.
    if (poller != nullptr) poller->poll(std::chrono::nanoseconds::zero());
    if (ready_count_ > 0 || remote_->has_work()) return;
    if (next_timer) {
      options_.clock->set(std::max(options_.clock->now(), *next_timer));
    } else if (external_waits_ > 0 && !io_pending) {
      remote_->wait(std::nullopt);  // another thread will complete it
    }
    return;
  }
  if (poller != nullptr) {
    poller->poll(timeout);
    return;
  }
  if (runnable) return;
  remote_->wait(next_timer);
}

void Scheduler::fire_due_timers() {
  if (sleepers_.empty() && deadlines_.empty()) return;
  const auto time = now();
  while (!sleepers_.empty() && sleepers_.top_at() <= time) {
    detail::TaskRecord& task = sleepers_.top();
    sleepers_.remove(task);
    wake(task);
  }
  fire_due_deadlines(time);
}

std::optional<Scheduler::Clock::time_point> Scheduler::next_timer_at() const noexcept {
  std::optional<Clock::time_point> next;
  if (!sleepers_.empty()) next = sleepers_.top_at();
  if (!deadlines_.empty() && (!next || deadlines_.top_at() < *next)) next = deadlines_.top_at();
  return next;
}

Deadline* Scheduler::enter_deadline(detail::TaskRecord& task, Deadline& deadline) noexcept {
  return std::exchange(task.deadlines_, &deadline);
}

void Scheduler::leave_deadline(detail::TaskRecord& task, Deadline& deadline) noexcept {
  // Why a walk: deadlines leave innermost first (they are locals of nested
  // frames), so this stops at the first link but for a moved-out case.
  for (Deadline** link = &task.deadlines_; *link != nullptr; link = &(*link)->outer_) {
    if (*link == &deadline) {
      *link = deadline.outer_;
      break;
    }
  }
  // The heap entry, if any, goes lazily: when its check comes or the task ends.
}

std::optional<Scheduler::Clock::time_point> Scheduler::earliest_deadline(const detail::TaskRecord& task) noexcept {
  std::optional<Clock::time_point> earliest;
  for (const Deadline* deadline = task.deadlines_; deadline != nullptr; deadline = deadline->outer_) {
    if (deadline->when_ && (!earliest || *deadline->when_ < *earliest)) earliest = deadline->when_;
  }
  return earliest;
}

void Scheduler::deadline_moved(detail::TaskRecord& task, std::optional<Clock::time_point> when) {
  // Why lazily for later times: requests move and disarm deadlines
  // constantly; the entry re-keys itself when its check comes, or goes with
  // the task, so there is never more than one per task.
  if (!when) return;
  if (!task.deadline_check_.in_heap()) {
    task.deadline_check_.at = *when;
    deadlines_.push(task);
  } else if (*when < task.deadline_check_.at) {
    task.deadline_check_.at = *when;
    deadlines_.reposition(task);
  }
}

Scheduler::PendingExpiry Scheduler::withdraw_deadline_cancel(detail::TaskRecord& task, Deadline& deadline) noexcept {
  if (!deadline.expiry_pending_) return PendingExpiry::none;
  if (task.cancel_not_by_deadline_) {  // another cause joined: it stands, and the task unwinds for it
    deadline.expiry_pending_ = false;
    return PendingExpiry::none;
  }
  if (&task != current_) return PendingExpiry::on_its_way;
  for (const Deadline* other = task.deadlines_; other != nullptr; other = other->outer_) {
    if (other != &deadline && other->expiry_pending_) return PendingExpiry::on_its_way;  // it expired too
  }
  task.cancel_pending_ = false;
  deadline.expiry_pending_ = false;
  return PendingExpiry::withdrawn;
}

void Scheduler::cancel_delivered(detail::TaskRecord& task) noexcept {
  task.cancel_not_by_deadline_ = false;
  for (Deadline* deadline = task.deadlines_; deadline != nullptr; deadline = deadline->outer_) {
    deadline->expiry_pending_ = false;
  }
}

void Scheduler::fire_due_deadlines(Clock::time_point time) {
  while (!deadlines_.empty() && deadlines_.top_at() <= time) {
    detail::TaskRecord& task = deadlines_.top();
    const std::optional<Clock::time_point> earliest = is_finished(task.state_) ? std::nullopt : earliest_deadline(task);
    if (earliest && *earliest > time) {
      task.deadline_check_.at = *earliest;  // moved later since: check again then
      deadlines_.reposition(task);
      continue;
    }
    if (!earliest) {  // disarmed or gone since, or the task ended
      deadlines_.remove(task);
      continue;
    }
    for (Deadline* deadline = task.deadlines_; deadline != nullptr; deadline = deadline->outer_) {
      if (deadline->when_ && *deadline->when_ <= time) deadline->expire();
    }
    if (const auto next = earliest_deadline(task)) {  // one around it is still armed
      task.deadline_check_.at = *next;
      deadlines_.reposition(task);
    } else {
      deadlines_.remove(task);
    }
    const bool already_pending = task.cancel_pending_;
    const bool other_cause = task.cancel_not_by_deadline_;
    cancel(task);
    task.cancel_not_by_deadline_ = already_pending && other_cause;
  }
}

bool Scheduler::step() {
  if (remote_->has_work()) remote_->drain();
  if (options_.poller != nullptr) options_.poller->poll(std::chrono::nanoseconds::zero());
  fire_due_timers();
  detail::TaskRecord* task = pop_ready();
  if (task == nullptr) return false;
  resume(*task);
  return true;
}

void Scheduler::run_until_idle() {
  while (step()) {
  }
}

void Scheduler::advance(std::chrono::nanoseconds by) {
  if (options_.clock == nullptr) throw std::logic_error("Scheduler::advance needs a ManualClock");
  const auto target = options_.clock->now() + by;
  run_until_idle();
  for (auto next = next_timer_at(); next && *next <= target; next = next_timer_at()) {
    options_.clock->set(std::max(options_.clock->now(), *next));
    run_until_idle();
  }
  options_.clock->set(target);
  run_until_idle();
}

// ---- parking and waking ----

void Scheduler::throw_if_canceled() {
  if (current_ != nullptr && current_->cancel_pending_) {
    current_->cancel_pending_ = false;  // delivered once; a task may catch it and go on
    cancel_delivered(*current_);
    throw TaskCanceled{};
  }
}

void Scheduler::block_current(std::coroutine_handle<> resume_at, CancelableWait* wait) noexcept {
  current_->resume_point_ = resume_at;
  current_->state_ = TaskState::blocked;
  current_->blocked_on_ = wait;
  ++current_->wait_sequence_;
}

void Scheduler::wake(detail::TaskRecord& task) noexcept {
  if (tearing_down_ || !task.in_use_ || task.state_ != TaskState::blocked) return;
  task.blocked_on_ = nullptr;
  push_ready(task);
}

void Scheduler::wake_if_waiting(detail::TaskRecord& task, std::uint32_t wait_sequence) noexcept {
  if (task.in_use_ && task.wait_sequence_ == wait_sequence) wake(task);
}

void Scheduler::yield_current(std::coroutine_handle<> resume_at) noexcept {
  current_->resume_point_ = resume_at;
  ++current_->wait_sequence_;
  push_ready(*current_);
}

void Scheduler::sleep_current_until(Clock::time_point deadline, std::coroutine_handle<> resume_at,
                                    CancelableWait* wait) {
  block_current(resume_at, wait);
  current_->sleep_.at = deadline;
  current_->sleep_.sequence = timer_sequence_++;  // equal times wake in the order they slept
  sleepers_.push(*current_);
}

void Scheduler::cancel_sleep(detail::TaskRecord& task) noexcept {
  if (task.sleep_.in_heap()) sleepers_.remove(task);
  wake(task);
}

void Scheduler::join_current_on(detail::TaskRecord& child, std::coroutine_handle<> resume_at, CancelableWait* wait) noexcept {
  child.joiner_ = current_;
  block_current(resume_at, wait);
}

void Scheduler::release(detail::TaskRecord& task) noexcept {
  if (tearing_down_) return;
  task.handle_alive_ = false;
  if (is_finished(task.state_)) free_record(task);
}

// ---- cancellation and the end of a task ----

bool Scheduler::cancel(TaskId id) noexcept {
  detail::TaskRecord* task = find(id);
  if (task == nullptr) return false;
  cancel(*task);
  return true;
}

void Scheduler::cancel(detail::TaskRecord& task) noexcept {
  if (!task.in_use_ || is_finished(task.state_)) return;
  task.cancel_not_by_deadline_ = true;  // fire_due_deadlines says otherwise for its own
  if (task.cancel_pending_) return;
  task.cancel_pending_ = true;
  if (trace_) trace_->record(trace_stamp(), task.id(), TaskEvent::cancel);
  if (task.state_ == TaskState::ready && !task.started_) {
    unlink_ready(task);
    finish_unstarted(task);
  } else if (task.state_ == TaskState::blocked) {
    if (CancelableWait* wait = std::exchange(task.blocked_on_, nullptr)) {
      wait->cancel_wait(task);  // wakes the task now, or once the kernel lets go of its I/O
    } else {
      wake(task);
    }
  }
  // ready-after-a-yield or running: delivered at the next suspension point
}

void Scheduler::finish_unstarted(detail::TaskRecord& task) noexcept {
  task.cancel_pending_ = false;
  cancel_delivered(task);
  task.promise_->set_exception(std::make_exception_ptr(TaskCanceled{}));
  settle(task, TaskState::canceled);
}

std::coroutine_handle<> Scheduler::on_task_finished(detail::TaskRecord& task) noexcept {
  const std::exception_ptr& error = task.promise_->exception();
  settle(task, !error ? TaskState::completed : is_cancellation(error) ? TaskState::canceled : TaskState::failed);
  return std::noop_coroutine();
}

void Scheduler::settle(detail::TaskRecord& task, TaskState final_state) noexcept {
  task.state_ = final_state;
  --unfinished_;
  TaskEvent event = TaskEvent::complete;
  if (final_state == TaskState::completed) {
    ++stats_.completed;
  } else if (final_state == TaskState::canceled) {
    ++stats_.canceled;
    event = TaskEvent::cancel;
  } else {
    ++stats_.failed;
    event = TaskEvent::fail;
    if (failure_logger_) failure_logger_(task.id(), task.promise_->exception());
  }
  if (trace_) {
    if (&task == current_) {
      finished_event_ = event;  // recorded with the run's end stamp
    } else {
      trace_->record(trace_stamp(), task.id(), event);
    }
  }
  if (task.joiner_ != nullptr) wake(*std::exchange(task.joiner_, nullptr));
  // Why: the frame is suspended at its final (or initial) point, so freeing
  // it here is safe as long as nothing touches it afterwards.
  if (!task.handle_alive_) free_record(task);
}

}  // namespace tiffany
