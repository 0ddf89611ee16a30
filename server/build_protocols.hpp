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
class WorkerContext;

/// Builds each listener's transport and protocol (for HTTP: its routes and
/// handlers), in config order; HTTP requests are logged to `access_log` if
/// given, and connections join `tracker` (limits, graceful shutdown) if
/// given. The built-in handlers and middleware get `builtins`, their
/// context on the worker these are built for (LoadedHandlers::builtins), or
/// their config-check context; a plugin's get its own on the same worker
/// (builtins.index(); < 0: its config-check context). `builtins` must
/// outlive the handlers. Throws ConfigError naming the JSON path of any problem.
std::vector<std::unique_ptr<Transport>> build_protocols(const Config& config, const HandlerRegistry& registry,
                                                        WorkerContext& builtins, const TlsContexts& tls_contexts,
                                                        AccessLog* access_log = nullptr,
                                                        ConnectionTracker* tracker = nullptr);

}  // namespace tiffany
