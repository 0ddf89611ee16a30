// Metrics: counters and the Prometheus text exposition.
#include "handlers/engine/metrics.hpp"

#include <algorithm>
#include <cstdio>
#include <utility>
#include <vector>

#include <picojson.h>

#include <tiffany/coro/scheduler_stats.hpp>
#include <tiffany/handlers/server_stats.hpp>

#include "handlers/internal/prometheus_text.hpp"

namespace tiffany {

// Label values escape backslash, quote and newline (exposition format).
std::string prometheus_label(std::string_view value) {
  std::string out;
  for (const char c : value) {
    if (c == '\\' || c == '"') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

namespace {

std::string label(std::string_view value) { return prometheus_label(value); }

void sample(std::string& out, const std::string& name_and_labels, double value) {
  prometheus::sample(out, name_and_labels, value);
}

void metric(std::string& out, const char* name, const char* type, const char* help, double value) {
  prometheus::family(out, name, type, help);
  sample(out, name, value);
}

double uptime_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - process_started()).count();
}

}  // namespace

Metrics& Metrics::instance() noexcept {
  static Metrics metrics;
  return metrics;
}

void WorkerCounters::publish(const SchedulerStats& stats) noexcept {
  spawned.store(stats.spawned, std::memory_order_relaxed);
  completed.store(stats.completed, std::memory_order_relaxed);
  failed.store(stats.failed, std::memory_order_relaxed);
  canceled.store(stats.canceled, std::memory_order_relaxed);
  context_switches.store(stats.context_switches, std::memory_order_relaxed);
  polls.store(stats.polls, std::memory_order_relaxed);
  slow_runs.store(stats.slow_runs, std::memory_order_relaxed);
  longest_run_ns.store(stats.longest_run.count(), std::memory_order_relaxed);
}

WorkerCounters& Metrics::add_worker() {
  std::lock_guard lock(mutex_);
  return workers_.emplace_back();
}

UpstreamServerMetrics& Metrics::add_upstream_server(std::string upstream, std::string server) {
  std::lock_guard lock(mutex_);
  return upstream_servers_.emplace_back(std::move(upstream), std::move(server));
}

RouteMetrics& Metrics::add_route(std::string listener, std::string route) {
  std::lock_guard lock(mutex_);
  return routes_.emplace_back(std::move(listener), std::move(route));
}

void Metrics::set_backend(std::string name) {
  std::lock_guard lock(mutex_);
  backend_ = std::move(name);
}

Metrics::TaskTotals Metrics::task_totals() const {
  TaskTotals totals;
  std::lock_guard lock(mutex_);
  for (const WorkerCounters& worker : workers_) {
    totals.spawned += worker.spawned.load(std::memory_order_relaxed);
    totals.completed += worker.completed.load(std::memory_order_relaxed);
    totals.failed += worker.failed.load(std::memory_order_relaxed);
    totals.canceled += worker.canceled.load(std::memory_order_relaxed);
    totals.context_switches += worker.context_switches.load(std::memory_order_relaxed);
    totals.polls += worker.polls.load(std::memory_order_relaxed);
    totals.slow_runs += worker.slow_runs.load(std::memory_order_relaxed);
    totals.longest_run_ns = std::max(totals.longest_run_ns, worker.longest_run_ns.load(std::memory_order_relaxed));
  }
  return totals;
}

std::string Metrics::render_prometheus() const {
  std::string out;
  {
    std::lock_guard lock(mutex_);
    // Each worker counts a route apart: sum them, in the order routes were added.
    std::vector<std::pair<const RouteMetrics*, std::array<std::uint64_t, 5>>> sums;
    for (const RouteMetrics& route : routes_) {
      auto same = std::find_if(sums.begin(), sums.end(), [&](const auto& sum) {
        return sum.first->listener == route.listener && sum.first->route == route.route;
      });
      if (same == sums.end()) same = sums.insert(sums.end(), {&route, {}});
      for (std::size_t i = 0; i < route.by_class.size(); ++i) {
        same->second[i] += route.by_class[i].load(std::memory_order_relaxed);
      }
    }
    prometheus::family(out, "tiffany_requests_total", "counter", "HTTP responses by listener, route and status class.");
    static constexpr const char* kClasses[] = {"1xx", "2xx", "3xx", "4xx", "5xx"};
    for (const auto& [route, by_class] : sums) {
      for (std::size_t i = 0; i < by_class.size(); ++i) {
        sample(out,
               "tiffany_requests_total{listener=\"" + label(route->listener) + "\",route=\"" + label(route->route) +
                   "\",code=\"" + kClasses[i] + "\"}",
               static_cast<double>(by_class[i]));
      }
    }
    prometheus::family(out, "tiffany_io_backend", "gauge", "The I/O backend in use (1 for the one named).");
    sample(out, "tiffany_io_backend{backend=\"" + label(backend_.empty() ? "unknown" : backend_) + "\"}", 1);
    render_upstreams(out);
    render_http2(out);
    render_websocket(out);
    render_redis(out);
  }
  const StatTotals stats = stat_totals();
  prometheus::family(out, "tiffany_request_duration_seconds", "histogram",
         "Time from a complete request to its response being ready.");
  std::uint64_t cumulative = 0;
  for (std::size_t i = 0; i < kDurationBounds.size(); ++i) {
    cumulative += stats.duration_buckets[i];
    char bound[32];
    std::snprintf(bound, sizeof bound, "%g", kDurationBounds[i]);
    sample(out, std::string("tiffany_request_duration_seconds_bucket{le=\"") + bound + "\"}",
           static_cast<double>(cumulative));
  }
  sample(out, "tiffany_request_duration_seconds_bucket{le=\"+Inf\"}", static_cast<double>(stats.duration_count));
  sample(out, "tiffany_request_duration_seconds_sum", stats.duration_sum_seconds);
  sample(out, "tiffany_request_duration_seconds_count", static_cast<double>(stats.duration_count));
  metric(out, "tiffany_uptime_seconds", "gauge", "Seconds since start-up.", uptime_seconds());
  for (std::size_t i = 0; i < kStatCount; ++i) {
    const StatDescription& stat = stat_descriptions()[i];
    const std::string name(stat.metric);
    if (i == 0 || stat.metric != stat_descriptions()[i - 1].metric) {  // a family's first sample
      prometheus::family(out, name.c_str(), stat.gauge ? "gauge" : "counter", std::string(stat.help).c_str());
    }
    sample(out, stat.labels.empty() ? name : name + "{" + std::string(stat.labels) + "}",
           static_cast<double>(stats.values[i]));
  }
  const TaskTotals tasks = task_totals();
  prometheus::family(out, "tiffany_tasks_total", "counter", "Tasks of all workers' schedulers, by how they ended.");
  sample(out, "tiffany_tasks_total{state=\"spawned\"}", static_cast<double>(tasks.spawned));
  sample(out, "tiffany_tasks_total{state=\"completed\"}", static_cast<double>(tasks.completed));
  sample(out, "tiffany_tasks_total{state=\"failed\"}", static_cast<double>(tasks.failed));
  sample(out, "tiffany_tasks_total{state=\"canceled\"}", static_cast<double>(tasks.canceled));
  metric(out, "tiffany_context_switches_total", "counter", "Task resumes by all workers' schedulers.",
         static_cast<double>(tasks.context_switches));
  metric(out, "tiffany_scheduler_polls_total", "counter", "Times the workers' schedulers asked their reactors for I/O.",
         static_cast<double>(tasks.polls));
  metric(out, "tiffany_slow_task_runs_total", "counter",
         "Task runs longer than the slow-task threshold (each is logged).", static_cast<double>(tasks.slow_runs));
  metric(out, "tiffany_task_longest_run_seconds", "gauge",
         "Longest time one task ran without suspending (when timed).", static_cast<double>(tasks.longest_run_ns) / 1e9);
  return out;
}

std::string Metrics::render_status_json() const {
  const StatTotals stats = stat_totals();
  const TaskTotals tasks = task_totals();
  picojson::object document;
  document.emplace("uptime_seconds", picojson::value(uptime_seconds()));
  for (std::size_t i = 0; i < kStatCount; ++i) {
    document.emplace(std::string(stat_descriptions()[i].key), picojson::value(static_cast<double>(stats.values[i])));
  }
  picojson::object scheduler;  // all workers'
  scheduler.emplace("spawned", picojson::value(static_cast<double>(tasks.spawned)));
  scheduler.emplace("completed", picojson::value(static_cast<double>(tasks.completed)));
  scheduler.emplace("failed", picojson::value(static_cast<double>(tasks.failed)));
  scheduler.emplace("canceled", picojson::value(static_cast<double>(tasks.canceled)));
  scheduler.emplace("context_switches", picojson::value(static_cast<double>(tasks.context_switches)));
  scheduler.emplace("polls", picojson::value(static_cast<double>(tasks.polls)));
  scheduler.emplace("slow_runs", picojson::value(static_cast<double>(tasks.slow_runs)));
  scheduler.emplace("longest_run_us", picojson::value(static_cast<double>(tasks.longest_run_ns) / 1e3));
  document.emplace("scheduler", picojson::value(std::move(scheduler)));
  return picojson::value(std::move(document)).serialize();
}

}  // namespace tiffany
