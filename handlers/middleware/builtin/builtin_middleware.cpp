// The built-in middleware, registered by name.
#include <memory>

#include <tiffany/handlers/middleware/middleware_registry.hpp>

#include "handlers/middleware/builtin/basic_auth_middleware.hpp"
#include "handlers/middleware/builtin/cors_middleware.hpp"
#include "handlers/middleware/builtin/headers_middleware.hpp"
#include "handlers/middleware/builtin/rate_limit_middleware.hpp"

namespace tiffany {
namespace {

template <class M>
MiddlewareFactory factory_for() {
  return [](const HandlerParams& params) -> std::unique_ptr<Middleware> { return std::make_unique<M>(params); };
}

}  // namespace

void register_builtin_middleware(MiddlewareRegistry& registry) {
  registry.add("headers", factory_for<HeadersMiddleware>());
  registry.add("cors", factory_for<CorsMiddleware>());
  registry.add("basic_auth", factory_for<BasicAuthMiddleware>());
  registry.add("rate_limit", factory_for<RateLimitMiddleware>());
}

}  // namespace tiffany
