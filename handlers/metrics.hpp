// Metrics: the process's request metrics, rendered in Prometheus text format.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>

namespace tiffany {

struct SchedulerStats;

/// Responses of one route (or of no route: "-"), by status class.
struct RouteMetrics {
  RouteMetrics(std::string listener_name, std::string route_pattern)
      : listener(std::move(listener_name)), route(std::move(route_pattern)) {}
  void count(int status) noexcept {
    if (status >= 100 && status < 600) by_class[static_cast<std::size_t>(status / 100 - 1)].fetch_add(1, std::memory_order_relaxed);
  }

  const std::string listener;
  const std::string route;
  std::array<std::atomic<std::uint64_t>, 5> by_class{};  // 1xx .. 5xx
};

/// One worker's scheduler counters, published by the worker now and then
/// (its scheduler's own counters are not thread-safe to read).
struct WorkerCounters {
  std::atomic<std::uint64_t> spawned{0}, completed{0}, failed{0}, canceled{0}, context_switches{0};
  std::atomic<std::int64_t> longest_run_ns{0};
  void publish(const SchedulerStats& stats) noexcept;
};

/// Request durations in Prometheus histogram buckets (seconds).
class DurationHistogram {
 public:
  static constexpr std::array<double, 12> kBounds{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005,
                                                  0.01,   0.025,   0.05,   0.1,   0.5,    1.0};
  void observe(std::chrono::nanoseconds took) noexcept;
  void render(std::string& out) const;

 private:
  std::array<std::atomic<std::uint64_t>, kBounds.size() + 1> counts_{};  // the last: above every bound
  std::atomic<std::uint64_t> sum_ns_{0};
};

/// Process-wide metrics beside ServerStats. Routes are added at start-up;
/// counting is lock-free (relaxed atomics), from any worker.
class Metrics {
 public:
  static Metrics& instance() noexcept;

  /// A route's counters, shared by every worker that serves it; the
  /// reference stays valid for the process's life.
  RouteMetrics& add_route(std::string listener, std::string route);
  DurationHistogram& durations() noexcept { return durations_; }
  /// A worker's slot for its scheduler counters; valid for the process's life.
  WorkerCounters& add_worker();
  void set_backend(std::string name);

  std::atomic<std::uint64_t> bytes_received{0};
  std::atomic<std::uint64_t> bytes_sent{0};
  std::atomic<std::uint64_t> accept_backoffs{0};  // accept failed for lack of fds or memory
  std::atomic<std::uint64_t> connections_refused{0};  // closed at once: the client address had its limit open

  /// Everything in Prometheus text exposition format (task counters summed
  /// over the workers, as last published).
  std::string render_prometheus() const;

 private:
  mutable std::mutex mutex_;  // guards routes_ growth and backend_
  std::deque<RouteMetrics> routes_;
  std::deque<WorkerCounters> workers_;
  std::string backend_;
  DurationHistogram durations_;
};

}  // namespace tiffany
