// Scheduler: the run loop, the ready queue, timers and the task table.
#include "coro/scheduler.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <thread>

namespace tiffany {
namespace {

thread_local Scheduler* t_current_scheduler = nullptr;

void log_failure_to_stderr(TaskId id, const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tiffany: task %llu failed: %s\n", static_cast<unsigned long long>(id), e.what());
  } catch (...) {
    std::fprintf(stderr, "tiffany: task %llu failed: unknown exception\n", static_cast<unsigned long long>(id));
  }
}

}  // namespace

namespace detail {
std::coroutine_handle<> finish_spawned_task(TaskRecord& record) noexcept {
  return Scheduler::current().on_task_finished(record);
}
}  // namespace detail

Scheduler::Scheduler(Poller* poller) : poller_(poller), failure_logger_(log_failure_to_stderr) {
  if (t_current_scheduler != nullptr) {
    std::fputs("tiffany: a second Scheduler on one thread\n", stderr);
    std::abort();
  }
  t_current_scheduler = this;
}

Scheduler::~Scheduler() {
  // Why: destroying a frame runs its awaiters' destructors, which may cancel
  // I/O and drop JoinHandles; tearing_down_ makes those wake()/release() calls
  // no-ops so nothing touches a record that is being freed.
  tearing_down_ = true;
  auto tasks = std::move(tasks_);
  tasks.clear();
  t_current_scheduler = nullptr;
}

Scheduler& Scheduler::current() noexcept {
  if (t_current_scheduler == nullptr) {
    std::fputs("tiffany: no Scheduler on this thread\n", stderr);
    std::abort();
  }
  return *t_current_scheduler;
}

TaskRecord& Scheduler::adopt(std::coroutine_handle<> root, detail::TaskPromiseBase& promise) {
  const TaskId id = next_id_++;
  auto record = std::make_unique<TaskRecord>(id, root, promise);
  TaskRecord& ref = *record;
  promise.set_record(&ref);
  tasks_.emplace(id, std::move(record));
  ++unfinished_;
  push_ready(ref);
  return ref;
}

std::optional<TaskState> Scheduler::state(TaskId id) const {
  auto it = tasks_.find(id);
  if (it == tasks_.end()) return std::nullopt;
  return it->second->state_;
}

void Scheduler::push_ready(TaskRecord& task) noexcept {
  task.state_ = TaskState::ready;
  task.next_ready_ = nullptr;
  if (ready_tail_ != nullptr) {
    ready_tail_->next_ready_ = &task;
  } else {
    ready_head_ = &task;
  }
  ready_tail_ = &task;
  ++ready_count_;
}

TaskRecord* Scheduler::pop_ready() noexcept {
  TaskRecord* task = ready_head_;
  if (task == nullptr) return nullptr;
  ready_head_ = task->next_ready_;
  if (ready_head_ == nullptr) ready_tail_ = nullptr;
  task->next_ready_ = nullptr;
  --ready_count_;
  return task;
}

void Scheduler::run() {
  stop_requested_ = false;
  while (!stop_requested_ && unfinished_ > 0) {
    run_ready_batch();
    if (stop_requested_ || unfinished_ == 0) break;
    wait_for_events();
    fire_due_timers();
  }
}

// Resumes the tasks that were ready when the turn began; tasks made ready
// during the turn wait for the next one, after I/O has been polled.
void Scheduler::run_ready_batch() {
  for (std::size_t n = ready_count_; n > 0 && !stop_requested_; --n) {
    TaskRecord* task = pop_ready();
    task->state_ = TaskState::running;
    current_ = task;
    task->resume_point_.resume();
    current_ = nullptr;
  }
}

void Scheduler::wait_for_events() {
  std::optional<std::chrono::nanoseconds> timeout;  // nullopt: wait for I/O
  if (ready_count_ > 0) {
    timeout = std::chrono::nanoseconds::zero();
  } else if (!timers_.empty()) {
    timeout = std::max(std::chrono::nanoseconds::zero(), timers_.front().deadline - Clock::now());
  }
  if (poller_ != nullptr && (poller_->has_pending() || timeout)) {
    poller_->poll(timeout);
    return;
  }
  if (ready_count_ > 0) return;
  if (!timers_.empty()) {
    std::this_thread::sleep_until(timers_.front().deadline);
    return;
  }
  throw std::logic_error("tiffany: every task is blocked and nothing can wake them (deadlock)");
}

void Scheduler::fire_due_timers() {
  if (timers_.empty()) return;
  const auto now = Clock::now();
  while (!timers_.empty() && timers_.front().deadline <= now) {
    std::pop_heap(timers_.begin(), timers_.end(), std::greater<>{});
    TaskRecord* task = timers_.back().task;
    timers_.pop_back();
    wake(*task);
  }
}

void Scheduler::block_current(std::coroutine_handle<> resume_at) noexcept {
  current_->resume_point_ = resume_at;
  current_->state_ = TaskState::blocked;
}

void Scheduler::wake(TaskRecord& task) noexcept {
  if (tearing_down_ || task.state_ != TaskState::blocked) return;
  push_ready(task);
}

void Scheduler::yield_current(std::coroutine_handle<> resume_at) noexcept {
  current_->resume_point_ = resume_at;
  push_ready(*current_);
}

void Scheduler::sleep_current_until(Clock::time_point deadline, std::coroutine_handle<> resume_at) {
  timers_.push_back(Timer{deadline, timer_sequence_++, current_});
  std::push_heap(timers_.begin(), timers_.end(), std::greater<>{});
  block_current(resume_at);
}

void Scheduler::join_current_on(TaskRecord& child, std::coroutine_handle<> resume_at) noexcept {
  child.joiner_ = current_;
  block_current(resume_at);
}

void Scheduler::release(TaskRecord& task) noexcept {
  if (tearing_down_) return;
  task.handle_alive_ = false;
  if (is_finished(task.state_)) erase(task);
}

std::coroutine_handle<> Scheduler::on_task_finished(TaskRecord& task) noexcept {
  const auto& error = task.promise().exception();
  task.state_ = error ? TaskState::failed : TaskState::completed;
  --unfinished_;
  if (error && failure_logger_) failure_logger_(task.id_, error);
  if (task.joiner_ != nullptr) wake(*std::exchange(task.joiner_, nullptr));
  // Why: the frame is suspended at its final point, so freeing it here is safe
  // as long as nothing touches it afterwards.
  if (!task.handle_alive_) erase(task);
  return std::noop_coroutine();
}

void Scheduler::erase(TaskRecord& task) noexcept { tasks_.erase(task.id_); }

}  // namespace tiffany
