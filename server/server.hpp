// Server: binds every listener once per worker, runs the workers, answers
// SIGUSR1/SIGHUP, and shuts them down gracefully on SIGINT/SIGTERM.
#pragma once

#include <memory>
#include <vector>

#include <tiffany/reactor/unique_fd.hpp>

#include "conf/config.hpp"
#include "server/build_tls_contexts.hpp"
#include "server/listen_socket.hpp"
#include "server/transport/listener_limits.hpp"
#include "server/worker.hpp"

namespace tiffany {

class HandlerRegistry;
class PluginHost;
class SystemdNotify;

/// Everything that can fail at start-up happens in the constructor, so a bad
/// route or a port in use is reported before anything runs.
class Server {
 public:
  /// Builds the protocols once (to validate routes and handler params), opens
  /// the access log and binds every listener for every worker, after checking
  /// that no other socket listens on its address unless it says share_port
  /// (may block up to 200 ms per taken address); throws ConfigError naming the
  /// JSON path of the first problem. `plugins` (may be null) must outlive
  /// the server; run() starts and stops them.
  Server(Config config, const HandlerRegistry& registry, PluginHost* plugins = nullptr);

  /// Starts the workers, logs the I/O backend and one line per listener,
  /// marks the process ready (`health` answers 200) and sends READY=1 to
  /// `notify`, and serves until SIGINT/SIGTERM arrives on `signal_fd`
  /// (SIGUSR1 meanwhile reopens the logs; SIGHUP is logged and ignored).
  /// Then: readiness closing (`health` 503, every response Connection:
  /// close) and STOPPING=1; `drain_delay_ms` of serving on; then drains
  /// (listeners closed, requests in flight finished, idle connections closed)
  /// and returns 0 when drained or at the drain timeout. A second shutdown
  /// signal during the delay or the drain exits at once. Plugins start
  /// (Plugin::start) before the workers and stop (Plugin::stop) after every
  /// worker ended; a plugin failing to start throws std::runtime_error naming it.
  int run(int signal_fd, const SystemdNotify& notify);

 private:
  Config config_;
  const HandlerRegistry& registry_;
  PluginHost* plugins_;
  std::size_t workers_;
  TlsContexts tls_contexts_;                       // [listener], shared by the workers
  PeerConnectionLimits peer_limits_;               // [listener], shared by the workers
  UniqueFd access_log_file_;                       // when the log goes to a file
  std::vector<std::vector<ListenSocket>> sockets_;  // [worker][listener]
  std::vector<ListenAddress> bound_;                // [listener]: the address really bound
};

}  // namespace tiffany
