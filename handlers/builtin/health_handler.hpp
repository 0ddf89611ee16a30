// health: 200 "ok" while serving, 503 while starting or shutting down, for balancers; status: counters as JSON.
#pragma once

#include <tiffany/handlers/handler.hpp>
#include <tiffany/handlers/handler_params.hpp>

namespace tiffany {

/// No params. 200 "ok" once every listener of the process is up and until a
/// shutdown begins; 503 "starting" before, 503 "draining" after (readiness.hpp).
class HealthHandler final : public Handler {
 public:
  explicit HealthHandler(const HandlerParams&) {}
  Task<void> handle(http::Request& request, http::Response& response) override;
};

/// No params. The metrics handler's counters as one JSON object:
/// {"uptime_seconds", every stat by its key (server_stats.hpp), "scheduler":
/// {spawned, completed, failed, canceled, context_switches, polls,
/// slow_runs, longest_run_us}} — the scheduler counters summed over the workers.
class StatusHandler final : public Handler {
 public:
  explicit StatusHandler(const HandlerParams&) {}
  Task<void> handle(http::Request& request, http::Response& response) override;
};

}  // namespace tiffany
