// Server: turns a Config into protocols and bound listeners, and runs them.
#pragma once

#include <memory>
#include <vector>

#include "conf/config.hpp"
#include "server/connection_protocol.hpp"
#include "server/access_log.hpp"
#include "server/listen_socket.hpp"

namespace tiffany {

class HandlerRegistry;

/// Owns the listening sockets of one config and each listener's protocol.
/// Everything that can fail at start-up happens in the constructor, so a bad
/// route or a port in use is reported before anything runs.
class Server {
 public:
  /// Builds protocols (routes, handlers) and binds every listener; throws
  /// ConfigError naming the JSON path of the first problem.
  Server(Config config, const HandlerRegistry& registry);

  /// Runs the worker until SIGINT/SIGTERM arrives on `signal_fd`. Prints the
  /// I/O backend and one line per listener first. Returns the exit code.
  int run(int signal_fd);

 private:
  Config config_;
  UniqueFd access_log_file_;                                    // when the log goes to a file
  std::unique_ptr<AccessLog> access_log_;
  std::vector<std::unique_ptr<ConnectionProtocol>> protocols_;  // parallel to config_.listeners
  std::vector<ListenSocket> sockets_;                           // parallel to config_.listeners
};

}  // namespace tiffany
