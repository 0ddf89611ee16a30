// Server: turns a Config into bound listeners and runs them on one worker.
#pragma once

#include <vector>

#include "conf/config.hpp"
#include "server/listen_socket.hpp"

namespace tiffany {

/// Owns the listening sockets of one config. Binding happens in the
/// constructor, so a port in use is reported before anything runs.
class Server {
 public:
  /// Binds every listener; throws ConfigError naming the listener's JSON path
  /// when one cannot listen (bad address for this host, port in use).
  explicit Server(Config config);

  /// Runs the worker until SIGINT/SIGTERM arrives on `signal_fd`. Prints the
  /// I/O backend and one line per listener first. Returns the exit code.
  int run(int signal_fd);

 private:
  Config config_;
  std::vector<ListenSocket> sockets_;  // parallel to config_.listeners
};

}  // namespace tiffany
