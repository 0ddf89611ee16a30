// OffloadPool: per-thread deques, stealing, and sleeping when there is nothing to do.
#include <tiffany/coro/offload_pool.hpp>

#include <algorithm>
#include <stdexcept>

namespace tiffany {
namespace {

thread_local OffloadPool* t_pool = nullptr;  // the pool this thread works for
thread_local std::size_t t_index = 0;

std::mutex g_default_mutex;
std::size_t g_default_size = 0;  // 0: the core count

}  // namespace

OffloadPool::OffloadPool(std::size_t threads) {
  if (threads == 0) throw std::invalid_argument("an offload pool needs at least one thread");
  for (std::size_t i = 0; i < threads; ++i) workers_.push_back(std::make_unique<Worker>());
  for (std::size_t i = 0; i < threads; ++i) workers_[i]->thread = std::thread([this, i] { work(i); });
}

OffloadPool::~OffloadPool() {
  {
    std::lock_guard lock(idle_mutex_);
    stopping_.store(true);
  }
  idle_.notify_all();
  for (auto& worker : workers_) worker->thread.join();
}

void OffloadPool::submit(Job job) {
  const std::size_t target =
      t_pool == this ? t_index : next_.fetch_add(1, std::memory_order_relaxed) % workers_.size();
  {
    std::lock_guard lock(workers_[target]->mutex);
    workers_[target]->jobs.push_back(std::move(job));
  }
  {
    // Why: taking idle_mutex_ orders this increment with a worker that is
    // about to sleep, so the wake-up below cannot be missed.
    std::lock_guard lock(idle_mutex_);
    queued_.fetch_add(1);
  }
  idle_.notify_one();
}

bool OffloadPool::take(std::size_t index, Job& job) {
  {
    Worker& own = *workers_[index];
    std::lock_guard lock(own.mutex);
    if (!own.jobs.empty()) {  // own work: newest first
      job = std::move(own.jobs.back());
      own.jobs.pop_back();
      return true;
    }
  }
  for (std::size_t step = 1; step < workers_.size(); ++step) {  // steal: oldest first
    Worker& victim = *workers_[(index + step) % workers_.size()];
    std::lock_guard lock(victim.mutex);
    if (!victim.jobs.empty()) {
      job = std::move(victim.jobs.front());
      victim.jobs.pop_front();
      steals_.fetch_add(1, std::memory_order_relaxed);
      return true;
    }
  }
  return false;
}

void OffloadPool::work(std::size_t index) {
  t_pool = this;
  t_index = index;
  for (;;) {
    Job job;
    if (take(index, job)) {
      queued_.fetch_sub(1);
      job();
      continue;
    }
    std::unique_lock lock(idle_mutex_);
    idle_.wait(lock, [this] { return queued_.load() > 0 || stopping_.load(); });
    if (stopping_.load() && queued_.load() == 0) return;
  }
}

OffloadPool& OffloadPool::default_pool() {
  static OffloadPool pool([] {
    std::lock_guard lock(g_default_mutex);
    return g_default_size != 0 ? g_default_size : std::max(1u, std::thread::hardware_concurrency());
  }());
  return pool;
}

void OffloadPool::configure_default(std::size_t threads) {
  std::lock_guard lock(g_default_mutex);
  g_default_size = threads;
}

}  // namespace tiffany
