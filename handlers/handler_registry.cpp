// HandlerRegistry: registration and lookup.
#include "handlers/handler_registry.hpp"

#include <stdexcept>

namespace tiffany {

void HandlerRegistry::add(const std::string& name, HandlerFactory factory) {
  if (!factories_.emplace(name, std::move(factory)).second) {
    throw std::invalid_argument("handler \"" + name + "\" is registered twice");
  }
}

const HandlerFactory* HandlerRegistry::find(const std::string& name) const {
  const auto it = factories_.find(name);
  return it == factories_.end() ? nullptr : &it->second;
}

std::vector<std::string> HandlerRegistry::names() const {
  std::vector<std::string> names;
  for (const auto& [name, factory] : factories_) names.push_back(name);
  return names;
}

}  // namespace tiffany
