// The built-in handlers, registered by name.
#include <memory>

#include <tiffany/handlers/handler_registry.hpp>

#include "handlers/builtin/echo_handler.hpp"
#include "handlers/builtin/health_handler.hpp"
#include "handlers/builtin/json_handler.hpp"
#include "handlers/builtin/metrics_handler.hpp"
#include "handlers/builtin/static_handler.hpp"
#include "handlers/builtin/text_handler.hpp"
#include "handlers/builtin/websocket_echo_handler.hpp"

namespace tiffany {
namespace {

template <class H>
HandlerFactory factory_for() {
  return [](const HandlerParams& params) -> std::unique_ptr<Handler> { return std::make_unique<H>(params); };
}

}  // namespace

void register_builtin_handlers(HandlerRegistry& registry) {
  registry.add("text", factory_for<TextHandler>());
  registry.add("echo", factory_for<EchoHandler>());
  registry.add("json", factory_for<JsonHandler>());
  registry.add("static", factory_for<StaticHandler>());
  registry.add("health", factory_for<HealthHandler>());
  registry.add("status", factory_for<StatusHandler>());
  registry.add("metrics", factory_for<MetricsHandler>());
  registry.add("websocket_echo", factory_for<WebSocketEchoHandler>());
}

}  // namespace tiffany
