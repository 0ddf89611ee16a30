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
  /// `origin` says where it came from: "built-in" or a plugin's path.
  void add(const std::string& name, HandlerFactory factory, std::string origin = "built-in");
  /// The factory called `name`, or nullptr.
  const HandlerFactory* find(const std::string& name) const;
  /// Where `name` came from ("built-in", or the plugin's path); empty if unknown.
  std::string origin(const std::string& name) const;
  std::vector<std::string> names() const;

 private:
  struct Entry {
    HandlerFactory factory;
    std::string origin;
  };
  std::map<std::string, Entry> entries_;
};

/// Registers the built-in handlers: text, echo, json, static, health, status, metrics.
void register_builtin_handlers(HandlerRegistry& registry);

}  // namespace tiffany
