// Transport: what a listener runs on each accepted connection: plain TCP
// or TLS around a StreamProtocol (echo, HTTP).
#pragma once

#include <sys/socket.h>

#include <tiffany/coro/task.hpp>
#include <tiffany/reactor/unique_fd.hpp>

#include "server/transport/connection_tracker.hpp"
#include "server/transport/idle_park.hpp"

namespace tiffany {

/// One per listener, shared by all its connections; must outlive them.
class Transport {
 public:
  virtual ~Transport() = default;
  /// Takes over an accepted connection: serves it until it ends (or parks
  /// it, and returns, to be served when it has input). `slot` counts it
  /// open until it closes.
  virtual Task<void> serve(UniqueFd socket, sockaddr_storage peer, ConnectionTracker::Slot slot) = 0;
  /// Takes over a connection that a wrapping transport started (see
  /// ProxyProtocolTransport, which has read its PROXY header): `first` holds
  /// input already read from it, or is empty (then the connection waits for
  /// its first bytes as an accepted one does). `accepted`: when it was.
  virtual Task<void> adopt(ParkedConnection connection, ReadLease first,
                           Scheduler::Clock::time_point accepted) = 0;
  /// Closes the connections waiting idle outside any task (shutdown: call
  /// it while the scheduler still exists).
  virtual void close_idle() noexcept {}
  /// "echo", "http", "https", "echo over TLS": for start-up lines.
  virtual const char* name() const noexcept = 0;
};

}  // namespace tiffany
