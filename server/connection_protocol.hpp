// ConnectionProtocol: what a listener runs on each accepted connection: a
// transport (plain TCP or TLS) around a StreamProtocol (echo, HTTP).
#pragma once

#include <sys/socket.h>

#include <memory>
#include <string>
#include <vector>

#include "coro/task.hpp"
#include "reactor/unique_fd.hpp"

namespace tiffany {

struct Config;
class HandlerRegistry;

/// One per listener, shared by all its connections; must outlive them.
class ConnectionProtocol {
 public:
  virtual ~ConnectionProtocol() = default;
  /// Serves one connection until it ends; owns `socket`.
  virtual Task<void> serve(UniqueFd socket, sockaddr_storage peer) = 0;
  /// "echo", "http", "https", "echo over TLS": for start-up lines.
  virtual const char* name() const noexcept = 0;
};

/// Builds each listener's protocol (for HTTP: its routes and handlers), in
/// config order. Throws ConfigError naming the JSON path of any problem.
std::vector<std::unique_ptr<ConnectionProtocol>> build_protocols(const Config& config,
                                                                 const HandlerRegistry& registry);

/// "127.0.0.1:5000" or "[::1]:5000".
std::string format_peer(const sockaddr_storage& peer);

}  // namespace tiffany
