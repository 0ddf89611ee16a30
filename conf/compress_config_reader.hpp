// read_compress: the `compress` key of a listener or route, validated.
#pragma once

#include "conf/config.hpp"
#include "conf/json_node.hpp"

namespace tiffany {

/// Reads `false`, `true` or an object (`codings`, `min_bytes`, `types`,
/// `level`). Keys an object leaves out, and `true`, take their values from
/// `inherited` when it is enabled (a route inherits its listener's), else
/// the defaults. Throws ConfigError naming the file, the JSON path and what
/// was expected.
CompressConfig read_compress(const JsonNode& node, const CompressConfig& inherited);

}  // namespace tiffany
