// Reading middleware settings that HandlerParams has no accessor for: string lists and string maps.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <tiffany/handlers/handler_params.hpp>

namespace tiffany::middleware_settings {

/// `key`: an array of strings (or absent: `fallback`). ParamError names `key`
/// (or `key[i]`) otherwise. `allow_star`: the string "*" alone is also
/// accepted, and given as {"*"}.
std::vector<std::string> string_list(const HandlerParams& params, const std::string& key,
                                     std::vector<std::string> fallback, bool allow_star = false);

/// `key`: an object of string values, in document order of its keys (or
/// absent: empty). ParamError names `key.name` for a value that is not a string.
std::vector<std::pair<std::string, std::string>> string_map(const HandlerParams& params, const std::string& key);

}  // namespace tiffany::middleware_settings
