// build_protocols: config listeners → transports carrying their protocols; HTTP routes → handlers.
#pragma once

#include <memory>
#include <vector>

#include "server/build_tls_contexts.hpp"
#include "server/transport/transport.hpp"

namespace tiffany {

struct Config;
class AccessLog;
class ConnectionTracker;
class HandlerRegistry;

/// Builds each listener's transport and protocol (for HTTP: its routes and
/// handlers), in config order; HTTP requests are logged to `access_log` if
/// given, and connections join `tracker` (limits, graceful shutdown) if
/// given. A plugin's handlers get its context on `worker` (< 0: the
/// config-check context). Throws ConfigError naming the JSON path of any problem.
std::vector<std::unique_ptr<Transport>> build_protocols(const Config& config, const HandlerRegistry& registry,
                                                        const TlsContexts& tls_contexts,
                                                        AccessLog* access_log = nullptr,
                                                        ConnectionTracker* tracker = nullptr, int worker = -1);

}  // namespace tiffany
