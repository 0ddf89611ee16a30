// health and status: liveness and the server's counters.
#include "handlers/builtin/health_handler.hpp"

#include "handlers/engine/metrics.hpp"
#include "handlers/engine/readiness.hpp"

namespace tiffany {

Task<void> HealthHandler::handle(http::Request&, http::Response& response) {
  response.headers.add("Content-Type", "text/plain");
  // Why no-store: a cache between a balancer and us must not keep a verdict that flips.
  response.headers.add("Cache-Control", "no-store");
  switch (readiness()) {
    case Readiness::ready:
      response.body = "ok";
      break;
    case Readiness::starting:
      response.status = 503;
      response.body = "starting";
      break;
    case Readiness::closing:
      response.status = 503;
      response.body = "draining";
      break;
  }
  co_return;
}

Task<void> StatusHandler::handle(http::Request&, http::Response& response) {
  response.headers.add("Content-Type", "application/json");
  response.body = Metrics::instance().render_status_json();  // the same counters as /metrics
  co_return;
}

}  // namespace tiffany
