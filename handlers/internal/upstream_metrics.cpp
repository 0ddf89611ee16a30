// Metrics::render_upstreams: the proxy's per-upstream-server counters, summed over workers, as Prometheus text.
#include <cstdio>
#include <map>
#include <utility>
#include <vector>

#include "handlers/engine/metrics.hpp"
#include "handlers/internal/prometheus_text.hpp"

namespace tiffany {
namespace {


// name{labels} value
void line(std::string& out, const std::string& name, const std::string& labels, double value) {
  prometheus::sample(out, name + "{" + labels + "}", value);
}

struct Sum {
  std::uint64_t requests = 0, latency_micros = 0, hedges_sent = 0, hedges_won = 0, retries = 0, refusals = 0,
                probes = 0, probe_failures = 0, marked_down = 0, came_back = 0, active = 0, idle = 0, up_workers = 0,
                workers = 0, spliced = 0;
  std::array<std::uint64_t, UpstreamServerMetrics::kErrorKinds.size()> errors{};
  std::array<std::uint64_t, UpstreamServerMetrics::kBuckets.size() + 1> buckets{};
};

}  // namespace

void Metrics::render_upstreams(std::string& out) const {
  if (upstream_servers_.empty()) return;
  const auto sums = prometheus::sums_by_labels<Sum>(
      upstream_servers_,
      [](const UpstreamServerMetrics& m) {
        return "upstream=\"" + prometheus_label(m.upstream) + "\",server=\"" + prometheus_label(m.server) + "\"";
      },
      [](Sum& sum, const UpstreamServerMetrics& m) {
        sum.requests += prometheus::read(m.requests);
        sum.latency_micros += prometheus::read(m.latency_micros_sum);
        sum.hedges_sent += prometheus::read(m.hedges_sent);
        sum.hedges_won += prometheus::read(m.hedges_won);
        sum.retries += prometheus::read(m.retries);
        sum.refusals += prometheus::read(m.budget_refusals);
        sum.probes += prometheus::read(m.probes);
        sum.probe_failures += prometheus::read(m.probe_failures);
        sum.marked_down += prometheus::read(m.marked_down);
        sum.came_back += prometheus::read(m.came_back);
        sum.active += prometheus::read(m.pool_active);
        sum.idle += prometheus::read(m.pool_idle);
        sum.up_workers += prometheus::read(m.up);
        sum.workers += 1;
        sum.spliced += prometheus::read(m.spliced_bytes);
        for (std::size_t i = 0; i < sum.errors.size(); ++i) sum.errors[i] += prometheus::read(m.errors[i]);
        for (std::size_t i = 0; i < sum.buckets.size(); ++i) sum.buckets[i] += prometheus::read(m.latency_buckets[i]);
      });
  prometheus::family(out, "tiffany_upstream_requests_total", "counter", "Attempts sent to an upstream server (retries and hedges included).");
  for (const auto& [labels, sum] : sums) line(out, "tiffany_upstream_requests_total", labels, static_cast<double>(sum.requests));
  prometheus::family(out, "tiffany_upstream_errors_total", "counter", "Failed attempts by kind (connect, timeout, protocol, truncated, 5xx, other).");
  for (const auto& [labels, sum] : sums) {
    for (std::size_t i = 0; i < sum.errors.size(); ++i) {
      line(out, "tiffany_upstream_errors_total",
           labels + ",kind=\"" + UpstreamServerMetrics::kErrorKinds[i] + "\"", static_cast<double>(sum.errors[i]));
    }
  }
  prometheus::family(out, "tiffany_upstream_response_seconds", "histogram", "Time from an attempt's start to its response head.");
  for (const auto& [labels, sum] : sums) {
    std::uint64_t cumulative = 0;
    for (std::size_t i = 0; i < sum.buckets.size(); ++i) {
      cumulative += sum.buckets[i];
      char bound[32];
      if (i < UpstreamServerMetrics::kBuckets.size()) {
        std::snprintf(bound, sizeof bound, "%g", UpstreamServerMetrics::kBuckets[i]);
      } else {
        std::snprintf(bound, sizeof bound, "+Inf");
      }
      line(out, "tiffany_upstream_response_seconds_bucket", labels + ",le=\"" + bound + "\"",
           static_cast<double>(cumulative));
    }
    line(out, "tiffany_upstream_response_seconds_sum", labels, static_cast<double>(sum.latency_micros) / 1e6);
    line(out, "tiffany_upstream_response_seconds_count", labels, static_cast<double>(cumulative));
  }
  const std::pair<const char*, std::uint64_t Sum::*> counters[] = {
      {"tiffany_upstream_hedges_sent_total", &Sum::hedges_sent},
      {"tiffany_upstream_hedges_won_total", &Sum::hedges_won},
      {"tiffany_upstream_retries_total", &Sum::retries},
      {"tiffany_upstream_retry_budget_refusals_total", &Sum::refusals},
      {"tiffany_upstream_probes_total", &Sum::probes},
      {"tiffany_upstream_probe_failures_total", &Sum::probe_failures}};
  for (const auto& [name, field] : counters) {
    prometheus::family(out, name, "counter", "Proxy attempts and probes per upstream server (see docs/operations.md).");
    for (const auto& [labels, sum] : sums) line(out, name, labels, static_cast<double>(sum.*field));
  }
  prometheus::family(out, "tiffany_proxy_spliced_bytes_total", "counter",
                     "Response body bytes from the server that went to clients by splice (socket to pipe to socket), "
                     "not copied through the proxy's buffers.");
  for (const auto& [labels, sum] : sums) {
    line(out, "tiffany_proxy_spliced_bytes_total", labels, static_cast<double>(sum.spliced));
  }
  prometheus::family(out, "tiffany_upstream_health_changes_total", "counter",
                     "Times health marked the server down (to=\"down\") or it came back (to=\"up\"), summed over workers.");
  for (const auto& [labels, sum] : sums) {
    line(out, "tiffany_upstream_health_changes_total", labels + ",to=\"down\"", static_cast<double>(sum.marked_down));
    line(out, "tiffany_upstream_health_changes_total", labels + ",to=\"up\"", static_cast<double>(sum.came_back));
  }
  prometheus::family(out, "tiffany_upstream_connections", "gauge", "Pooled connections to the server, busy (active) or idle, summed over workers.");
  for (const auto& [labels, sum] : sums) {
    line(out, "tiffany_upstream_connections", labels + ",state=\"active\"", static_cast<double>(sum.active));
    line(out, "tiffany_upstream_connections", labels + ",state=\"idle\"", static_cast<double>(sum.idle));
  }
  prometheus::family(out, "tiffany_upstream_up", "gauge", "The share of workers on which the server takes requests (1: all, 0: down).");
  for (const auto& [labels, sum] : sums) {
    line(out, "tiffany_upstream_up", labels, static_cast<double>(sum.up_workers) / static_cast<double>(sum.workers));
  }
}

}  // namespace tiffany
