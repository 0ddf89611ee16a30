// OffloadPool: threads for blocking and CPU-heavy work, with work stealing.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace tiffany {

/// A fixed set of threads, each with its own deque of jobs. A job submitted
/// from a pool thread goes to that thread's deque (newest first, for cache
/// warmth); others are spread round-robin. An idle thread steals the oldest
/// job of a busy one. Use it through `co_await offload(...)`.
///
/// Thread-safe. Destruction runs the jobs already queued, then joins.
class OffloadPool {
 public:
  using Job = std::function<void()>;

  explicit OffloadPool(std::size_t threads);
  OffloadPool(const OffloadPool&) = delete;
  OffloadPool& operator=(const OffloadPool&) = delete;
  ~OffloadPool();

  void submit(Job job);
  std::size_t size() const noexcept { return workers_.size(); }
  /// Jobs run by a thread other than the one they were queued on.
  std::uint64_t steals() const noexcept { return steals_.load(std::memory_order_relaxed); }

  /// The process-wide pool offload() uses by default; created on first use
  /// with the size last given to configure_default (default: the core count).
  static OffloadPool& default_pool();
  /// Sets the default pool's size; only before its first use.
  static void configure_default(std::size_t threads);

 private:
  struct Worker {
    std::mutex mutex;
    std::deque<Job> jobs;
    std::thread thread;
  };

  void work(std::size_t index);
  bool take(std::size_t index, Job& job);

  std::vector<std::unique_ptr<Worker>> workers_;
  std::atomic<std::size_t> next_{0};
  std::atomic<std::size_t> queued_{0};
  std::atomic<std::uint64_t> steals_{0};
  std::atomic<bool> stopping_{false};
  std::mutex idle_mutex_;
  std::condition_variable idle_;
};

}  // namespace tiffany
