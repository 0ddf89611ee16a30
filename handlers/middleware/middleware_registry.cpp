// MiddlewareRegistry: registration and lookup.
#include <tiffany/handlers/middleware/middleware_registry.hpp>

#include <stdexcept>

namespace tiffany {

void MiddlewareRegistry::add(const std::string& name, MiddlewareFactory factory, std::string origin,
                             LoadedPlugin* plugin) {
  if (!entries_.emplace(name, Entry{std::move(factory), std::move(origin), plugin}).second) {
    throw std::invalid_argument("middleware \"" + name + "\" is registered twice");
  }
}

const MiddlewareFactory* MiddlewareRegistry::find(const std::string& name) const {
  const auto it = entries_.find(name);
  return it == entries_.end() ? nullptr : &it->second.factory;
}

std::string MiddlewareRegistry::origin(const std::string& name) const {
  const auto it = entries_.find(name);
  return it == entries_.end() ? std::string() : it->second.origin;
}

std::vector<std::string> MiddlewareRegistry::names() const {
  std::vector<std::string> names;
  for (const auto& [name, entry] : entries_) names.push_back(name);
  return names;
}

LoadedPlugin* MiddlewareRegistry::plugin(const std::string& name) const {
  const auto it = entries_.find(name);
  return it == entries_.end() ? nullptr : it->second.plugin;
}

}  // namespace tiffany
