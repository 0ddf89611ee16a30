// metrics: renders Metrics for Prometheus.
#include "handlers/builtin/metrics_handler.hpp"

#include "handlers/engine/metrics.hpp"

namespace tiffany {

Task<void> MetricsHandler::handle(http::Request&, http::Response& response) {
  response.headers.add("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
  response.body = Metrics::instance().render_prometheus();
  co_return;
}

}  // namespace tiffany
