// health and status: liveness and the server's counters.
#include "handlers/builtin/health_handler.hpp"

#include "handlers/internal/metrics.hpp"

namespace tiffany {

Task<void> HealthHandler::handle(http::Request&, http::Response& response) {
  response.headers.add("Content-Type", "text/plain");
  response.body = "ok";
  co_return;
}

Task<void> StatusHandler::handle(http::Request&, http::Response& response) {
  response.headers.add("Content-Type", "application/json");
  response.body = Metrics::instance().render_status_json();  // the same counters as /metrics
  co_return;
}

}  // namespace tiffany
