// Loading and validating a config file.
#pragma once

#include <string>

#include "conf/config.hpp"

namespace tiffany {

/// Reads and validates `path`. Throws ConfigError naming the file, the JSON
/// path and what was expected; nothing is half-applied.
Config load_config(const std::string& path);

/// Validates config text; `file` is only used in error messages.
Config parse_config(const std::string& text, const std::string& file);

}  // namespace tiffany
