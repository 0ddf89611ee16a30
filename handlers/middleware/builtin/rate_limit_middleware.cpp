// rate_limit: settings, the client key, and the 429 answer.
#include "handlers/middleware/builtin/rate_limit_middleware.hpp"

#include <cmath>

namespace tiffany {
namespace {

double read_rate(const HandlerParams& params) {
  const picojson::value* value = params.json("rate");
  if (value == nullptr) throw ParamError("rate", "missing required key (requests a second)");
  if (!value->is<double>() || !(value->get<double>() >= 0.001) || value->get<double>() > 1e6) {
    throw ParamError("rate", "expected a number of requests a second from 0.001 to 1000000, got " + value->serialize());
  }
  return value->get<double>();
}

}  // namespace

std::string_view peer_address(std::string_view peer) noexcept {
  const std::size_t colon = peer.rfind(':');
  if (colon == std::string_view::npos || (!peer.empty() && peer.back() == ']')) return peer;
  return peer.substr(0, colon);
}

RateLimitMiddleware::RateLimitMiddleware(const HandlerParams& params)
    : buckets_(read_rate(params),
               static_cast<double>(params.integer_or("burst", static_cast<std::int64_t>(std::ceil(read_rate(params))), 1,
                                                     1'000'000)),
               static_cast<std::size_t>(params.integer_or("max_clients", 10'000, 1, 10'000'000))) {}

Task<void> RateLimitMiddleware::handle(http::Request& request, http::Response& response, Next next) {
  const std::int64_t retry_after = buckets_.take(peer_address(request.peer), TokenBuckets::Clock::now());
  if (retry_after > 0) {
    response.status = 429;
    response.headers.set("Retry-After", std::to_string(retry_after));
    response.headers.set("Content-Type", "text/plain; charset=utf-8");
    response.body = "429 Too Many Requests\n";
    co_return;
  }
  co_await next(request, response);
}

}  // namespace tiffany
