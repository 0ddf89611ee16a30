// HandlerRegistry: registration and lookup.
#include <tiffany/handlers/handler_registry.hpp>

#include <stdexcept>

namespace tiffany {

void HandlerRegistry::add(const std::string& name, HandlerFactory factory, std::string origin, LoadedPlugin* plugin) {
  if (!entries_.emplace(name, Entry{std::move(factory), std::move(origin), plugin}).second) {
    throw std::invalid_argument("handler \"" + name + "\" is registered twice");
  }
}

const HandlerFactory* HandlerRegistry::find(const std::string& name) const {
  const auto it = entries_.find(name);
  return it == entries_.end() ? nullptr : &it->second.factory;
}

std::string HandlerRegistry::origin(const std::string& name) const {
  const auto it = entries_.find(name);
  return it == entries_.end() ? std::string() : it->second.origin;
}

std::vector<std::string> HandlerRegistry::names() const {
  std::vector<std::string> names;
  for (const auto& [name, entry] : entries_) names.push_back(name);
  return names;
}

}  // namespace tiffany

namespace tiffany {

LoadedPlugin* HandlerRegistry::plugin(const std::string& name) const {
  const auto it = entries_.find(name);
  return it == entries_.end() ? nullptr : it->second.plugin;
}

}  // namespace tiffany
