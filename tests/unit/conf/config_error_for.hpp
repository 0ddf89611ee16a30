// error_for: what parse_config says of a config text, for the config tests.
#pragma once

#include <string>

#include "conf/config_error.hpp"
#include "conf/config_loader.hpp"

namespace tiffany {

/// The ConfigError message for `text` (as file "test.json"), or "(accepted)".
inline std::string error_for(const std::string& text) {
  try {
    parse_config(text, "test.json");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(accepted)";
}

}  // namespace tiffany
