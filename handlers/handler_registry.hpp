// HandlerRegistry: handler factories by name ("text", "static", "shop.cart", ...), and the middleware registry.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <tiffany/handlers/handler.hpp>
#include <tiffany/handlers/handler_params.hpp>
#include <tiffany/handlers/middleware/middleware_registry.hpp>

namespace tiffany {

class LoadedPlugin;

/// Builds a Handler from a route's params; throws ParamError when they are wrong.
using HandlerFactory = std::function<std::unique_ptr<Handler>(const HandlerParams& params)>;

/// Name → factory. Filled at start-up (built-ins, then plugins), read-only after.
class HandlerRegistry {
 public:
  /// Registers `factory` as `name`; throws std::invalid_argument if taken.
  /// `origin` says where it came from: "built-in" or a plugin's path.
  /// `plugin`: the plugin it came from (its contexts), null for a built-in.
  void add(const std::string& name, HandlerFactory factory, std::string origin = "built-in",
           LoadedPlugin* plugin = nullptr);
  /// The factory called `name`, or nullptr.
  const HandlerFactory* find(const std::string& name) const;
  /// Where `name` came from ("built-in", or the plugin's path); empty if unknown.
  std::string origin(const std::string& name) const;
  std::vector<std::string> names() const;
  /// The plugin `name` came from, or nullptr (built-in or unknown).
  LoadedPlugin* plugin(const std::string& name) const;

  /// The middleware factories, filled beside the handlers (built-ins, then plugins).
  MiddlewareRegistry& middleware() noexcept { return middleware_; }
  const MiddlewareRegistry& middleware() const noexcept { return middleware_; }

 private:
  struct Entry {
    HandlerFactory factory;
    std::string origin;
    LoadedPlugin* plugin;
  };
  std::map<std::string, Entry> entries_;
  MiddlewareRegistry middleware_;
};

/// Registers the built-in handlers: text, echo, json, static, health, status, metrics.
void register_builtin_handlers(HandlerRegistry& registry);

}  // namespace tiffany
