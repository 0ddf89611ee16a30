// Metrics: counters and the Prometheus text exposition.
#include "handlers/metrics.hpp"

#include <algorithm>
#include <cstdio>

#include "coro/scheduler_stats.hpp"
#include "handlers/server_stats.hpp"

namespace tiffany {
namespace {

// Label values escape backslash, quote and newline (exposition format).
std::string label(std::string_view value) {
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

void family(std::string& out, const char* name, const char* type, const char* help) {
  out += "# HELP ";
  out += name;
  out += ' ';
  out += help;
  out += "\n# TYPE ";
  out += name;
  out += ' ';
  out += type;
  out += '\n';
}

void sample(std::string& out, const std::string& name_and_labels, double value) {
  char number[64];
  std::snprintf(number, sizeof number, "%.17g", value);
  out += name_and_labels;
  out += ' ';
  out += number;
  out += '\n';
}

void metric(std::string& out, const char* name, const char* type, const char* help, double value) {
  family(out, name, type, help);
  sample(out, name, value);
}

}  // namespace

void DurationHistogram::observe(std::chrono::nanoseconds took) noexcept {
  const double seconds = std::chrono::duration<double>(took).count();
  std::size_t bucket = 0;
  while (bucket < kBounds.size() && seconds > kBounds[bucket]) ++bucket;
  counts_[bucket].fetch_add(1, std::memory_order_relaxed);
  sum_ns_.fetch_add(static_cast<std::uint64_t>(took.count()), std::memory_order_relaxed);
}

void DurationHistogram::render(std::string& out) const {
  family(out, "tiffany_request_duration_seconds", "histogram",
         "Time from a complete request to its response being ready.");
  std::uint64_t cumulative = 0;
  for (std::size_t i = 0; i < kBounds.size(); ++i) {
    cumulative += counts_[i].load(std::memory_order_relaxed);
    char bound[32];
    std::snprintf(bound, sizeof bound, "%g", kBounds[i]);
    sample(out, std::string("tiffany_request_duration_seconds_bucket{le=\"") + bound + "\"}",
           static_cast<double>(cumulative));
  }
  cumulative += counts_.back().load(std::memory_order_relaxed);
  sample(out, "tiffany_request_duration_seconds_bucket{le=\"+Inf\"}", static_cast<double>(cumulative));
  sample(out, "tiffany_request_duration_seconds_sum", static_cast<double>(sum_ns_.load()) / 1e9);
  sample(out, "tiffany_request_duration_seconds_count", static_cast<double>(cumulative));
}

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
  longest_run_ns.store(stats.longest_run.count(), std::memory_order_relaxed);
}

WorkerCounters& Metrics::add_worker() {
  std::lock_guard lock(mutex_);
  return workers_.emplace_back();
}

RouteMetrics& Metrics::add_route(std::string listener, std::string route) {
  std::lock_guard lock(mutex_);
  for (RouteMetrics& known : routes_) {  // every worker builds the same routes: they share counters
    if (known.listener == listener && known.route == route) return known;
  }
  return routes_.emplace_back(std::move(listener), std::move(route));
}

void Metrics::set_backend(std::string name) {
  std::lock_guard lock(mutex_);
  backend_ = std::move(name);
}

std::string Metrics::render_prometheus() const {
  std::string out;
  const ServerStats& stats = server_stats();
  {
    std::lock_guard lock(mutex_);
    family(out, "tiffany_requests_total", "counter", "HTTP responses by listener, route and status class.");
    static constexpr const char* kClasses[] = {"1xx", "2xx", "3xx", "4xx", "5xx"};
    for (const RouteMetrics& route : routes_) {
      for (std::size_t i = 0; i < route.by_class.size(); ++i) {
        sample(out,
               "tiffany_requests_total{listener=\"" + label(route.listener) + "\",route=\"" + label(route.route) +
                   "\",code=\"" + kClasses[i] + "\"}",
               static_cast<double>(route.by_class[i].load(std::memory_order_relaxed)));
      }
    }
    family(out, "tiffany_io_backend", "gauge", "The I/O backend in use (1 for the one named).");
    sample(out, "tiffany_io_backend{backend=\"" + label(backend_.empty() ? "unknown" : backend_) + "\"}", 1);
  }
  durations_.render(out);
  metric(out, "tiffany_uptime_seconds", "gauge", "Seconds since start-up.",
         std::chrono::duration<double>(std::chrono::steady_clock::now() - stats.started).count());
  metric(out, "tiffany_connections_open", "gauge", "Connections open now.",
         static_cast<double>(stats.connections_open.load()));
  metric(out, "tiffany_connections_idle", "gauge",
         "Connections idle before their first bytes or between requests (parked: no task, no read buffer).",
         static_cast<double>(stats.connections_idle.load()));
  metric(out, "tiffany_connections_total", "counter", "Connections accepted.",
         static_cast<double>(stats.connections_total.load()));
  metric(out, "tiffany_bytes_received_total", "counter", "Bytes read from HTTP peers.",
         static_cast<double>(bytes_received.load()));
  metric(out, "tiffany_bytes_sent_total", "counter", "Bytes written to HTTP peers.",
         static_cast<double>(bytes_sent.load()));
  metric(out, "tiffany_timeouts_total", "counter", "Connections closed by a timeout.",
         static_cast<double>(stats.timeouts_total.load()));
  metric(out, "tiffany_accept_backoffs_total", "counter",
         "Times accepting paused for lack of file descriptors or memory.", static_cast<double>(accept_backoffs.load()));
  metric(out, "tiffany_connections_refused_total", "counter",
         "Connections closed at once because their client address had a listener's max_connections_per_ip open.",
         static_cast<double>(connections_refused.load()));
  std::uint64_t spawned = 0, completed = 0, failed = 0, canceled = 0, switches = 0;
  std::int64_t longest_ns = 0;
  {
    std::lock_guard lock(mutex_);
    for (const WorkerCounters& worker : workers_) {
      spawned += worker.spawned.load(std::memory_order_relaxed);
      completed += worker.completed.load(std::memory_order_relaxed);
      failed += worker.failed.load(std::memory_order_relaxed);
      canceled += worker.canceled.load(std::memory_order_relaxed);
      switches += worker.context_switches.load(std::memory_order_relaxed);
      longest_ns = std::max(longest_ns, worker.longest_run_ns.load(std::memory_order_relaxed));
    }
  }
  family(out, "tiffany_tasks_total", "counter", "Tasks of all workers' schedulers, by how they ended.");
  sample(out, "tiffany_tasks_total{state=\"spawned\"}", static_cast<double>(spawned));
  sample(out, "tiffany_tasks_total{state=\"completed\"}", static_cast<double>(completed));
  sample(out, "tiffany_tasks_total{state=\"failed\"}", static_cast<double>(failed));
  sample(out, "tiffany_tasks_total{state=\"canceled\"}", static_cast<double>(canceled));
  metric(out, "tiffany_context_switches_total", "counter", "Task resumes by all workers' schedulers.",
         static_cast<double>(switches));
  metric(out, "tiffany_task_longest_run_seconds", "gauge",
         "Longest time one task ran without suspending (when timed).", static_cast<double>(longest_ns) / 1e9);
  return out;
}

}  // namespace tiffany
