// parse_strict_json: JSON text to a picojson value, refusing a key given twice in one object.
#pragma once

#include <picojson.h>

#include <string>

namespace tiffany {

/// Parses `text` (the contents of `file`) as JSON. Throws ConfigError for
/// invalid JSON, and for an object with the same key twice, naming its JSON
/// path: most parsers keep the last silently, so `"path"` given once for the
/// route and once more among a handler's settings would move the route.
picojson::value parse_strict_json(const std::string& text, const std::string& file);

}  // namespace tiffany
