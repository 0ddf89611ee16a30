// headers: sets and removes response headers around the handler.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <tiffany/handlers/middleware/middleware.hpp>

namespace tiffany {

/// Settings: `set` (object: field name → value), `remove` (array of names).
/// `set` fields are in place before the rest of the chain runs (so a streamed
/// response carries them too) and set again after it on a whole response,
/// replacing what the handler put there; `remove` is applied after it on a
/// whole response. Server-managed fields (Date, Content-Length, ...) cannot
/// be touched.
class HeadersMiddleware final : public Middleware {
 public:
  explicit HeadersMiddleware(const HandlerParams& params);
  Task<void> handle(http::Request& request, http::Response& response, Next next) override;

 private:
  std::vector<std::pair<std::string, std::string>> set_;
  std::vector<std::string> remove_;
};

}  // namespace tiffany
