// Reading a listener's `tls` key: certificates, SNI names, versions, ciphers.
#pragma once

#include <string>

#include "conf/config.hpp"
#include "conf/json_node.hpp"

namespace tiffany {

/// Validates `tls`: either one object `{cert, key, ...settings}` or an array of
/// `{server_names, cert, key}` whose first entry is the default certificate and
/// also holds the listener-wide settings. File paths are made absolute against
/// `directory`; the files themselves are read later, when the listener's TLS
/// context is built. Throws ConfigError naming the JSON path of a mistake.
TlsConfig read_tls(const JsonNode& node, const std::string& directory);

}  // namespace tiffany
