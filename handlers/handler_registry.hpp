// HandlerRegistry: handler factories by name ("text", "static", "shop.cart", ...).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "handlers/handler.hpp"
#include "handlers/handler_params.hpp"

namespace tiffany {

/// Builds a Handler from a route's params; throws ParamError when they are wrong.
using HandlerFactory = std::function<std::unique_ptr<Handler>(const HandlerParams& params)>;

/// Name → factory. Filled at start-up (built-ins, then plugins), read-only after.
class HandlerRegistry {
 public:
  /// Registers `factory` as `name`; throws std::invalid_argument if taken.
  void add(const std::string& name, HandlerFactory factory);
  /// The factory called `name`, or nullptr.
  const HandlerFactory* find(const std::string& name) const;
  std::vector<std::string> names() const;

 private:
  std::map<std::string, HandlerFactory> factories_;
};

/// Registers the built-in handlers: text, echo, json, static, health, status.
void register_builtin_handlers(HandlerRegistry& registry);

}  // namespace tiffany
