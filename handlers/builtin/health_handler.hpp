// health: 200 "ok" for load balancers and probes; status: counters as JSON.
#pragma once

#include "handlers/handler.hpp"
#include "handlers/handler_params.hpp"

namespace tiffany {

/// No params. Always 200 with body "ok".
class HealthHandler final : public Handler {
 public:
  explicit HealthHandler(const HandlerParams&) {}
  Task<void> handle(http::Request& request, http::Response& response) override;
};

/// No params. {"uptime_seconds", "connections_open", "connections_total", "requests_total", "timeouts_total",
/// "scheduler": {spawned, completed, failed, canceled, context_switches, polls,
/// longest_run_us, slow_runs}} — the scheduler counters are this worker's.
class StatusHandler final : public Handler {
 public:
  explicit StatusHandler(const HandlerParams&) {}
  Task<void> handle(http::Request& request, http::Response& response) override;
};

}  // namespace tiffany
