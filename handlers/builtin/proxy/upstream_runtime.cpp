// UpstreamRuntime: the per-worker clients, metrics rows and active health probes of one upstream.
#include "handlers/builtin/proxy/upstream_runtime.hpp"

#include <chrono>

#include <tiffany/coro/scheduler.hpp>
#include <tiffany/coro/sleep.hpp>
#include <tiffany/coro/deadline.hpp>
#include <tiffany/handlers/plugin_logger.hpp>

#include "handlers/engine/metrics.hpp"

namespace tiffany::proxy {
namespace {

HttpClientOptions client_options(const UpstreamConfig& config, std::string base_url) {
  HttpClientOptions options;
  options.base_url = std::move(base_url);
  options.pool.max_idle_per_origin = config.keepalive;
  options.pool.max_per_origin = config.max_connections == 0 ? std::size_t{1} << 30 : config.max_connections;
  options.pool.idle_timeout = std::chrono::milliseconds(config.idle_timeout_ms);
  options.timeouts.connect = std::chrono::milliseconds(config.connect_timeout_ms);
  // Why none here: the proxy route sets the first-byte, read and total
  // limits per request (routes sharing this upstream may differ).
  options.timeouts.first_byte = std::chrono::milliseconds(0);
  options.timeouts.read = std::chrono::milliseconds(0);
  if (config.tls) {
    options.tls.verify_peer = config.tls->verify;
    options.tls.ca_file = config.tls->ca_file;
    options.tls.server_name = config.tls->server_name;
  }
  return options;
}

}  // namespace

UpstreamRuntime::UpstreamRuntime(const UpstreamConfig& config, bool serving) : upstream_(config) {
  for (const UpstreamServerConfig& server : config.servers) {
    const std::string host = server.ipv6_literal ? "[" + server.host + "]" : server.host;
    origins_.push_back(std::string(config.tls ? "https://" : "http://") + host + ":" + std::to_string(server.port));
    clients_.push_back(std::make_unique<HttpClient>(client_options(config, origins_.back())));
    if (serving) {
      metrics_.push_back(&Metrics::instance().add_upstream_server(config.name, server.to_string()));
    } else {
      scratch_.push_back(std::make_unique<UpstreamServerMetrics>(config.name, server.to_string()));
      metrics_.push_back(scratch_.back().get());
    }
  }
}

void UpstreamRuntime::refresh_gauges() {
  const upstream::TimePoint now = Scheduler::current().now();
  for (std::size_t i = 0; i < clients_.size(); ++i) {
    metrics_[i]->pool_active.store(clients_[i]->busy_connections(), std::memory_order_relaxed);
    metrics_[i]->pool_idle.store(clients_[i]->idle_connections(), std::memory_order_relaxed);
    const upstream::ServerState state = upstream_.group.state(i, now);
    const bool up = state == upstream::ServerState::up || state == upstream::ServerState::probing;
    metrics_[i]->up.store(up ? 1 : 0, std::memory_order_relaxed);
  }
}

void UpstreamRuntime::end_attempt(std::size_t index, upstream::Outcome outcome) {
  health_changed(index, upstream_.group.end(index, outcome, Scheduler::current().now()), false);
}

void UpstreamRuntime::health_changed(std::size_t index, upstream::HealthChange change, bool by_probe) {
  if (change == upstream::HealthChange::none) return;
  const bool down = change == upstream::HealthChange::marked_down;
  UpstreamServerMetrics::add(down ? metrics_[index]->marked_down : metrics_[index]->came_back);
  refresh_gauges();  // Why now: the proxy refreshes them before a response, which may end after it
  if (!log_sink().enabled(LogLevel::warn)) return;
  const UpstreamConfig& config = upstream_.config;
  std::string line = "upstream \"" + config.name + "\": server " + config.servers[index].to_string();
  if (by_probe && down) {
    line += " marked down: " + std::to_string(config.health->fall) + " health probes in a row failed";
  } else if (by_probe) {
    line += " back up: " + std::to_string(config.health->rise) + " health probes in a row passed";
  } else if (down) {
    line += " marked down for " + std::to_string(config.fail_timeout_ms) + " ms: " +
            std::to_string(config.max_fails) + " failed request(s) within fail_timeout_ms (max_fails)";
  } else {
    line += " back up: a request to it succeeded";
  }
  log_sink().write(LogLevel::warn, line);
}

Task<bool> UpstreamRuntime::probe_once(std::size_t index) {
  const UpstreamHealthConfig& health = *upstream_.config.health;
  ClientRequest request;
  request.url = health.path;
  request.headers.add("User-Agent", "tiffany-health-check");
  const Deadline deadline = Deadline::after(std::chrono::milliseconds(health.timeout_ms));
  const Timed<ClientResult<ClientResponse>> reply = co_await deadline.guard(clients_[index]->fetch(std::move(request)));
  if (reply.timed_out()) co_return false;
  const ClientResult<ClientResponse>& answer = *reply;
  co_return answer.ok() && answer->status >= health.expect_status_min && answer->status <= health.expect_status_max;
}

Task<void> UpstreamRuntime::probe_loop(std::weak_ptr<UpstreamRuntime> weak) {
  for (;;) {
    std::shared_ptr<UpstreamRuntime> self = weak.lock();
    if (self == nullptr) co_return;  // the routes that used it are gone
    const std::chrono::milliseconds interval(self->upstream_.config.health->interval_ms);
    for (std::size_t i = 0; i < self->clients_.size(); ++i) {
      const bool passed = co_await self->probe_once(i);
      self->health_changed(i, self->upstream_.group.probe_result(i, passed), true);
      UpstreamServerMetrics::add(self->metrics_[i]->probes);
      if (!passed) UpstreamServerMetrics::add(self->metrics_[i]->probe_failures);
    }
    self->refresh_gauges();
    self.reset();  // Why: between rounds only the routes keep it alive
    co_await Sleep(interval);
  }
}

}  // namespace tiffany::proxy
