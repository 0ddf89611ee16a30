// rate_limit: a token bucket per client address and worker; 429 with Retry-After past it.
#pragma once

#include <tiffany/handlers/middleware/middleware.hpp>

#include "handlers/middleware/builtin/token_buckets.hpp"

namespace tiffany {

/// Settings: `rate` (requests a second, sustained; required), `burst`
/// (requests at once; default: rate rounded up), `max_clients` (buckets kept
/// per worker, default 10,000; the client seen longest ago is forgotten past
/// it). The key is the peer's address without its port.
///
/// Why per worker: no lock or shared atomic on the request path. A client
/// whose connections land on N workers may get up to N times the rate; one
/// keep-alive connection stays on one worker.
class RateLimitMiddleware final : public Middleware {
 public:
  explicit RateLimitMiddleware(const HandlerParams& params);
  Task<void> handle(http::Request& request, http::Response& response, Next next) override;

 private:
  TokenBuckets buckets_;
};

/// "10.0.0.1" for "10.0.0.1:5000", "[::1]" for "[::1]:5000".
std::string_view peer_address(std::string_view peer) noexcept;

}  // namespace tiffany
