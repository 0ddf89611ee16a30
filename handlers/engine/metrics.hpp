// Metrics: per-route and per-worker counters, and the one report /status and /metrics render.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>

#include "handlers/engine/http2_metrics.hpp"
#include "handlers/engine/websocket_metrics.hpp"
#include "handlers/internal/redis_metrics.hpp"
#include "handlers/internal/upstream_metrics.hpp"

namespace tiffany {

struct SchedulerStats;

/// `value` escaped for a Prometheus label value (backslash, quote, newline).
std::string prometheus_label(std::string_view value);

/// Responses of one route (or of no route: "-") on one worker, by status
/// class. Written by that worker alone; read by any thread.
struct RouteMetrics {
  RouteMetrics(std::string listener_name, std::string route_pattern)
      : listener(std::move(listener_name)), route(std::move(route_pattern)) {}
  void count(int status) noexcept {
    if (status < 100 || status >= 600) return;
    auto& counter = by_class[static_cast<std::size_t>(status / 100 - 1)];
    counter.store(counter.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);  // one writer
  }

  const std::string listener;
  const std::string route;
  std::array<std::atomic<std::uint64_t>, 5> by_class{};  // 1xx .. 5xx
};

/// One worker's scheduler counters, published by the worker now and then
/// (its scheduler's own counters are not thread-safe to read).
struct WorkerCounters {
  std::atomic<std::uint64_t> spawned{0}, completed{0}, failed{0}, canceled{0}, context_switches{0}, polls{0},
      slow_runs{0};
  std::atomic<std::int64_t> longest_run_ns{0};
  void publish(const SchedulerStats& stats) noexcept;
};

/// The process's metrics beside its stats (server_stats.hpp): route and task
/// counters, the I/O backend, and the two renderings of them all.
class Metrics {
 public:
  static Metrics& instance() noexcept;

  /// Counters for one worker's route; the reference stays valid for the
  /// process's life. Each worker adds its own; renderings sum them.
  RouteMetrics& add_route(std::string listener, std::string route);
  /// A worker's slot for its scheduler counters; valid for the process's life.
  WorkerCounters& add_worker();
  /// One worker's counters for `server` of `upstream` (the proxy's); valid
  /// for the process's life; renderings sum the workers'.
  UpstreamServerMetrics& add_upstream_server(std::string upstream, std::string server);
  /// One worker's HTTP/2 counters for `listener`; valid for the process's
  /// life; renderings sum the workers'.
  Http2Metrics& add_http2(std::string listener);
  /// One worker's WebSocket counters for `listener` (an HTTP one); as add_http2.
  WebSocketMetrics& add_websocket(std::string listener);
  /// One worker's counters of pub/sub's links to `redis` ("host:port"); as add_http2.
  RedisMetrics& add_redis(std::string redis);
  void set_backend(std::string name);

  /// The WebSocket counters of `listener`, summed over its workers' rows.
  struct WebSocketTotals {
    std::uint64_t connections = 0, ended = 0, freed = 0;
  };
  WebSocketTotals websocket_totals(const std::string& listener) const;

  /// Everything in Prometheus text exposition format.
  std::string render_prometheus() const;
  /// The same counters as one JSON object (the status handler's body):
  /// uptime_seconds, each stat by its key, and "scheduler" (all workers').
  std::string render_status_json() const;

 private:
  struct TaskTotals {
    std::uint64_t spawned = 0, completed = 0, failed = 0, canceled = 0, context_switches = 0, polls = 0,
                  slow_runs = 0;
    std::int64_t longest_run_ns = 0;
  };
  TaskTotals task_totals() const;
  void render_upstreams(std::string& out) const;  // with mutex_ held
  void render_http2(std::string& out) const;      // with mutex_ held
  void render_websocket(std::string& out) const;  // with mutex_ held
  void render_redis(std::string& out) const;      // with mutex_ held

  mutable std::mutex mutex_;  // guards routes_ and workers_ growth and backend_
  std::deque<RouteMetrics> routes_;
  std::deque<WorkerCounters> workers_;
  std::deque<UpstreamServerMetrics> upstream_servers_;
  std::deque<Http2Metrics> http2_;
  std::deque<WebSocketMetrics> websocket_;
  std::deque<RedisMetrics> redis_;
  std::string backend_;
};

}  // namespace tiffany
