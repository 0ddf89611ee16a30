// UpstreamRuntime: one worker's live state for one upstream: balancer and health, retry budget, a client per server, metrics.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include <tiffany/client/http_client.hpp>
#include <tiffany/coro/task.hpp>

#include "client/upstream/upstream_set.hpp"
#include "handlers/internal/upstream_metrics.hpp"

namespace tiffany::proxy {

/// Shared (std::shared_ptr) by every proxy route naming this upstream on one
/// worker, so they balance, count failures and spend one retry budget
/// together, and reuse one pool of keep-alive connections per server.
/// Per worker, no locks: used only on the worker's thread.
class UpstreamRuntime {
 public:
  /// `serving`: false while the config is only checked (no metrics rows).
  UpstreamRuntime(const UpstreamConfig& config, bool serving);
  UpstreamRuntime(const UpstreamRuntime&) = delete;
  UpstreamRuntime& operator=(const UpstreamRuntime&) = delete;

  const UpstreamConfig& config() const noexcept { return upstream_.config; }
  upstream::UpstreamGroup& group() noexcept { return upstream_.group; }
  upstream::RetryBudget& retry_budget() noexcept { return upstream_.retry_budget; }
  /// The pooled client for server `index` (one origin each).
  HttpClient& client(std::size_t index) { return *clients_[index]; }
  /// "http://127.0.0.1:9001" (https with `tls`): server `index`'s client's base_url.
  const std::string& origin(std::size_t index) const { return origins_[index]; }
  /// The stage limits every server's client has (connect from the config).
  const ClientTimeouts& client_timeouts() const noexcept { return clients_.front()->options().timeouts; }
  /// This worker's counters for server `index` (a scratch row while checking).
  UpstreamServerMetrics& metrics(std::size_t index) { return *metrics_[index]; }
  /// Copies the pools' sizes and the health states into the metrics gauges.
  void refresh_gauges();
  /// An attempt on server `index` ended: tells the balancer and health
  /// (group().end) and logs and counts what that changed.
  void end_attempt(std::size_t index, upstream::Outcome outcome);

  /// The active health probe loop (spawned once per worker by ProxyUpstreams
  /// when the upstream has `health`): probes every server each interval
  /// through its client, feeding group().probe_result(). Holds only a weak
  /// reference between rounds: it ends at its next wake once the runtime is gone.
  static Task<void> probe_loop(std::weak_ptr<UpstreamRuntime> weak);

 private:
  Task<bool> probe_once(std::size_t index);
  /// Logs at warn (and counts) a server marked down or back up; `by_probe`: active health's doing.
  void health_changed(std::size_t index, upstream::HealthChange change, bool by_probe);

  upstream::Upstream upstream_;
  std::vector<std::unique_ptr<HttpClient>> clients_;
  std::vector<std::string> origins_;
  std::vector<std::unique_ptr<UpstreamServerMetrics>> scratch_;  // while checking the config
  std::vector<UpstreamServerMetrics*> metrics_;
};

}  // namespace tiffany::proxy
