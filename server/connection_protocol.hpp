// ConnectionProtocol: what a listener runs on each accepted connection: a
// transport (plain TCP or TLS) around a StreamProtocol (echo, HTTP).
#pragma once

#include <sys/socket.h>

#include <memory>
#include <string>
#include <vector>

#include "coro/task.hpp"
#include "reactor/unique_fd.hpp"
#include "server/connection_tracker.hpp"

namespace tiffany {

struct Config;
class AccessLog;
class HandlerRegistry;

/// One per listener, shared by all its connections; must outlive them.
class ConnectionProtocol {
 public:
  virtual ~ConnectionProtocol() = default;
  /// Takes over an accepted connection: serves it until it ends (or parks
  /// it, and returns, to be served when it has input). `slot` counts it
  /// open until it closes.
  virtual Task<void> serve(UniqueFd socket, sockaddr_storage peer, ConnectionTracker::Slot slot) = 0;
  /// Closes the connections waiting idle outside any task (shutdown: call
  /// it while the scheduler still exists).
  virtual void close_idle() noexcept {}
  /// "echo", "http", "https", "echo over TLS": for start-up lines.
  virtual const char* name() const noexcept = 0;
};

namespace tls {
class TlsContext;
}

/// Each listener's TLS context (null for plain listeners), in config order.
/// Built once per process and shared by the workers: OpenSSL contexts are
/// thread-safe, and one context means one session cache and ticket key.
/// Throws ConfigError for a bad certificate, key or setting.
using TlsContexts = std::vector<std::shared_ptr<const tls::TlsContext>>;
TlsContexts build_tls_contexts(const Config& config);

/// Builds each listener's protocol (for HTTP: its routes and handlers), in
/// config order; HTTP requests are logged to `access_log` if given, and
/// connections join `tracker` (limits, graceful shutdown) if given. A
/// plugin's handlers get its context on `worker` (< 0: the config-check
/// context). Throws ConfigError naming the JSON path of any problem.
std::vector<std::unique_ptr<ConnectionProtocol>> build_protocols(const Config& config,
                                                                 const HandlerRegistry& registry,
                                                                 const TlsContexts& tls_contexts,
                                                                 AccessLog* access_log = nullptr,
                                                                 ConnectionTracker* tracker = nullptr,
                                                                 int worker = -1);

/// "127.0.0.1:5000" or "[::1]:5000".
std::string format_peer(const sockaddr_storage& peer);

}  // namespace tiffany
