// metrics: Prometheus text exposition of the server's counters.
#pragma once

#include <tiffany/handlers/handler.hpp>
#include <tiffany/handlers/handler_params.hpp>

namespace tiffany {

/// No params. Requests by route and status class, a request-duration
/// histogram, connections, bytes in/out, timeouts, accept back-offs, the I/O
/// backend, and the workers' task counters (published every 100 ms), as text/plain; version=0.0.4.
class MetricsHandler final : public Handler {
 public:
  explicit MetricsHandler(const HandlerParams&) {}
  Task<void> handle(http::Request& request, http::Response& response) override;
};

}  // namespace tiffany
