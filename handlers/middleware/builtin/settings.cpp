// Reading middleware settings: string lists and string maps, with ParamError naming the key.
#include "handlers/middleware/builtin/settings.hpp"

namespace tiffany::middleware_settings {

std::vector<std::string> string_list(const HandlerParams& params, const std::string& key,
                                     std::vector<std::string> fallback, bool allow_star) {
  const picojson::value* value = params.json(key);
  if (value == nullptr) return fallback;
  const std::string expected = allow_star ? "expected \"*\" or an array of strings" : "expected an array of strings";
  if (allow_star && value->is<std::string>() && value->get<std::string>() == "*") return {"*"};
  if (!value->is<picojson::array>()) throw ParamError(key, expected + ", got " + value->serialize());
  std::vector<std::string> items;
  const picojson::array& array = value->get<picojson::array>();
  for (std::size_t i = 0; i < array.size(); ++i) {
    if (!array[i].is<std::string>() || array[i].get<std::string>().empty()) {
      throw ParamError(key + "[" + std::to_string(i) + "]", "expected a non-empty string, got " + array[i].serialize());
    }
    items.push_back(array[i].get<std::string>());
  }
  return items;
}

std::vector<std::pair<std::string, std::string>> string_map(const HandlerParams& params, const std::string& key) {
  const picojson::value* value = params.json(key);
  if (value == nullptr) return {};
  if (!value->is<picojson::object>()) throw ParamError(key, "expected an object of strings, got " + value->serialize());
  std::vector<std::pair<std::string, std::string>> entries;
  for (const auto& [name, item] : value->get<picojson::object>()) {
    if (!item.is<std::string>()) {
      throw ParamError(key + "." + name, "expected a string, got " + item.serialize());
    }
    entries.emplace_back(name, item.get<std::string>());
  }
  return entries;
}

}  // namespace tiffany::middleware_settings
