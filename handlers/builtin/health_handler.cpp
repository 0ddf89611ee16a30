// health and status: liveness and the server's counters.
#include "handlers/builtin/health_handler.hpp"

#include <picojson.h>

#include "coro/scheduler.hpp"
#include "handlers/server_stats.hpp"

namespace tiffany {

Task<void> HealthHandler::handle(http::Request&, http::Response& response) {
  response.headers.add("Content-Type", "text/plain");
  response.body = "ok";
  co_return;
}

Task<void> StatusHandler::handle(http::Request&, http::Response& response) {
  const ServerStats& stats = server_stats();
  const double uptime = std::chrono::duration<double>(std::chrono::steady_clock::now() - stats.started).count();
  picojson::object document;
  document.emplace("uptime_seconds", picojson::value(uptime));
  document.emplace("connections_open", picojson::value(static_cast<double>(stats.connections_open.load())));
  document.emplace("connections_total", picojson::value(static_cast<double>(stats.connections_total.load())));
  document.emplace("requests_total", picojson::value(static_cast<double>(stats.requests_total.load())));
  document.emplace("tls_handshakes_total", picojson::value(static_cast<double>(stats.tls_handshakes_total.load())));
  document.emplace("tls_handshake_failures",
                   picojson::value(static_cast<double>(stats.tls_handshake_failures.load())));
  document.emplace("tls_handshake_timeouts",
                   picojson::value(static_cast<double>(stats.tls_handshake_timeouts.load())));
  document.emplace("timeouts_total", picojson::value(static_cast<double>(stats.timeouts_total.load())));
  // This worker's kernel.
  const SchedulerStats& tasks = Scheduler::current().stats();
  picojson::object scheduler;
  scheduler.emplace("spawned", picojson::value(static_cast<double>(tasks.spawned)));
  scheduler.emplace("completed", picojson::value(static_cast<double>(tasks.completed)));
  scheduler.emplace("failed", picojson::value(static_cast<double>(tasks.failed)));
  scheduler.emplace("canceled", picojson::value(static_cast<double>(tasks.canceled)));
  scheduler.emplace("context_switches", picojson::value(static_cast<double>(tasks.context_switches)));
  scheduler.emplace("polls", picojson::value(static_cast<double>(tasks.polls)));
  scheduler.emplace("longest_run_us",
                    picojson::value(std::chrono::duration<double, std::micro>(tasks.longest_run).count()));
  scheduler.emplace("slow_runs", picojson::value(static_cast<double>(tasks.slow_runs)));
  document.emplace("scheduler", picojson::value(std::move(scheduler)));
  response.headers.add("Content-Type", "application/json");
  response.body = picojson::value(std::move(document)).serialize();
  co_return;
}

}  // namespace tiffany
