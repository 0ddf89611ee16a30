// WorkerContext: background tasks that live until the worker drains.
#include <tiffany/handlers/plugin_context.hpp>

namespace tiffany {

void WorkerContext::spawn(Task<void> task) {
  if (checking()) throw std::logic_error("a config check runs no background task; spawn in Plugin::start_worker");
  if (stopped_) throw std::logic_error("worker is draining: no new background task");
  if (scheduler_ == nullptr) {
    queued_.push_back(std::move(task));
    return;
  }
  // Why: a plugin that keeps spawning short tasks must not grow this list for ever.
  std::erase_if(running_, [](const JoinHandle<void>& done) { return done.finished(); });
  running_.push_back(scheduler_->spawn(std::move(task)));
}

void WorkerContext::attach(Scheduler& scheduler) {
  scheduler_ = &scheduler;
  std::vector<Task<void>> queued = std::move(queued_);
  queued_.clear();
  for (Task<void>& task : queued) running_.push_back(scheduler.spawn(std::move(task)));
}

void WorkerContext::cancel_tasks() noexcept {
  stopped_ = true;
  for (JoinHandle<void>& task : running_) task.cancel();
}

bool WorkerContext::tasks_finished() const noexcept {
  for (const JoinHandle<void>& task : running_) {
    if (!task.finished()) return false;
  }
  return true;
}

void WorkerContext::release_tasks() noexcept {
  running_.clear();  // detaches: the scheduler destroys what is left
  queued_.clear();
  scheduler_ = nullptr;
}

}  // namespace tiffany
