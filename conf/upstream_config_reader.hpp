// Reading the top-level `upstreams` section: named server groups for `proxy` routes.
#pragma once

#include <string>
#include <vector>

#include "conf/config.hpp"
#include "conf/json_node.hpp"

namespace tiffany {

/// Validates `upstreams`: an object of NAME -> upstream. Returns them sorted by
/// name. File paths (tls.ca_file) are made absolute against `directory`.
/// Throws ConfigError naming the JSON path of a mistake.
std::vector<UpstreamConfig> read_upstreams(const JsonNode& node, const std::string& directory);

/// Checks that every route whose handler is "proxy" names a defined upstream in
/// `with.upstream` (or flat `upstream`). Throws ConfigError otherwise.
void check_proxy_routes(const Config& config);

}  // namespace tiffany
