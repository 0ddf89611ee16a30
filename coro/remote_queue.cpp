// RemoteQueue: mutex-protected inbox plus a wake-up of the owning scheduler.
#include <tiffany/coro/remote_queue.hpp>

#include <tiffany/coro/poller.hpp>

namespace tiffany {

bool RemoteQueue::post(Callback callback) {
  std::lock_guard lock(mutex_);
  if (closed_) return false;
  items_.push_back(std::move(callback));
  pending_.store(true, std::memory_order_release);
  // Why: waking under the lock means close() (which takes it) cannot finish
  // while a poster still touches the poller.
  if (poller_ != nullptr) {
    poller_->wake();
  } else {
    posted_.notify_one();
  }
  return true;
}

std::size_t RemoteQueue::drain() {
  {
    std::lock_guard lock(mutex_);
    draining_.swap(items_);
    pending_.store(false, std::memory_order_relaxed);
  }
  // Why: cleared even if a callback throws, so nothing ever runs twice.
  struct ClearOnExit {
    std::vector<Callback>& callbacks;
    ~ClearOnExit() { callbacks.clear(); }
  } clear{draining_};
  for (Callback& callback : draining_) callback();
  return draining_.size();
}

void RemoteQueue::wait(std::optional<std::chrono::steady_clock::time_point> deadline) {
  std::unique_lock lock(mutex_);
  const auto ready = [this] { return !items_.empty() || closed_; };
  if (deadline) {
    posted_.wait_until(lock, *deadline, ready);
  } else {
    posted_.wait(lock, ready);
  }
}

void RemoteQueue::close() {
  std::lock_guard lock(mutex_);
  closed_ = true;
  items_.clear();
}

}  // namespace tiffany
