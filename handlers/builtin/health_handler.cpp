// health and status: liveness and the server's counters.
#include "handlers/builtin/health_handler.hpp"

#include <picojson.h>

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
  response.headers.add("Content-Type", "application/json");
  response.body = picojson::value(std::move(document)).serialize();
  co_return;
}

}  // namespace tiffany
