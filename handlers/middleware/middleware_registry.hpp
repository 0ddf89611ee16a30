// MiddlewareRegistry: middleware factories by name ("cors", "kv.auth", ...).
#pragma once

#include <map>
#include <string>
#include <vector>

#include <tiffany/handlers/middleware/middleware.hpp>

namespace tiffany {

class LoadedPlugin;

/// Name → factory. Filled at start-up (built-ins, then plugins), read-only after.
class MiddlewareRegistry {
 public:
  /// Registers `factory` as `name`; throws std::invalid_argument if taken.
  /// `origin`: "built-in" or a plugin's path; `plugin`: null for a built-in.
  void add(const std::string& name, MiddlewareFactory factory, std::string origin = "built-in",
           LoadedPlugin* plugin = nullptr);
  /// The factory called `name`, or nullptr.
  const MiddlewareFactory* find(const std::string& name) const;
  /// Where `name` came from; empty if unknown.
  std::string origin(const std::string& name) const;
  std::vector<std::string> names() const;
  /// The plugin `name` came from, or nullptr.
  LoadedPlugin* plugin(const std::string& name) const;

 private:
  struct Entry {
    MiddlewareFactory factory;
    std::string origin;
    LoadedPlugin* plugin;
  };
  std::map<std::string, Entry> entries_;
};

/// Registers the built-in middleware: headers, cors, basic_auth, rate_limit.
void register_builtin_middleware(MiddlewareRegistry& registry);

}  // namespace tiffany
