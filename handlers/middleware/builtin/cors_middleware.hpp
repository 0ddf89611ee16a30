// cors: Cross-Origin Resource Sharing: answers preflights, marks allowed origins' responses.
#pragma once

#include <string>
#include <vector>

#include <tiffany/handlers/middleware/middleware.hpp>

namespace tiffany {

/// Settings: `origins` ("*" or an array of "scheme://host[:port]", required),
/// `methods` (default GET, HEAD, POST), `headers` (request headers allowed,
/// default none), `expose_headers` (default none), `credentials` (default
/// false; not with "*"), `max_age` (seconds a preflight may be cached;
/// default 600).
///
/// A preflight (OPTIONS with Origin and Access-Control-Request-Method) is
/// answered here: 204 with the Access-Control-Allow-* fields, or 403 for an
/// origin not allowed; the handler never sees it. Any other request with an
/// allowed Origin runs the rest of the chain with Access-Control-Allow-Origin
/// (and Vary: Origin when the answer depends on the origin) in place.
/// Requests without Origin pass untouched.
class CorsMiddleware final : public Middleware {
 public:
  explicit CorsMiddleware(const HandlerParams& params);
  Task<void> handle(http::Request& request, http::Response& response, Next next) override;

  bool allows_origin(std::string_view origin) const noexcept;

 private:
  bool any_origin_;
  std::vector<std::string> origins_;
  std::string methods_;  // joined with ", "
  std::string headers_;
  std::string expose_headers_;
  bool credentials_;
  std::string max_age_;
};

}  // namespace tiffany
