// RemoteQueue: the one way other threads hand work to a scheduler's thread.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <vector>

namespace tiffany {

class Poller;

/// A thread-safe inbox of callbacks, run on the scheduler's thread at its
/// next loop turn. Posting wakes the scheduler: through the poller (an
/// eventfd in the reactor) or, without one, a condition variable.
///
/// Lifetime: shared (std::shared_ptr) by the scheduler and whoever may post;
/// after the scheduler closes it, posts are refused and dropped.
class RemoteQueue {
 public:
  using Callback = std::function<void()>;

  explicit RemoteQueue(Poller* poller) : poller_(poller) {}

  /// Any thread. False (and `callback` dropped) once the scheduler is gone.
  bool post(Callback callback);

  // ---- the scheduler's thread ----
  bool has_work() const noexcept { return pending_.load(std::memory_order_acquire); }
  /// Runs everything posted so far; returns how many callbacks ran.
  std::size_t drain();
  /// Without a poller: sleeps until work is posted or `deadline` (nullopt: forever).
  void wait(std::optional<std::chrono::steady_clock::time_point> deadline);
  /// Refuses further posts (the scheduler is going away).
  void close();

 private:
  Poller* poller_;
  std::mutex mutex_;
  std::condition_variable posted_;
  std::vector<Callback> items_;
  std::vector<Callback> draining_;  // swapped with items_, so callbacks run unlocked
  std::atomic<bool> pending_{false};
  bool closed_ = false;
};

}  // namespace tiffany
