// The accept loop: a task per listener that spawns a task per connection.
#pragma once

#include "coro/task.hpp"
#include "server/connection_protocol.hpp"

namespace tiffany {

class ConnectionTracker;

/// Accepts connections on `listen_fd` until canceled, spawning
/// `protocol.serve` for each (detached). At the worker's connection limit it
/// pauses until one closes; running out of descriptors or memory backs off
/// instead of spinning; an error that means the socket itself is broken ends
/// the loop with an exception. `protocol` and `tracker` must outlive the loop
/// and its connections.
Task<void> accept_loop(int listen_fd, ConnectionProtocol& protocol, ConnectionTracker& tracker);

}  // namespace tiffany
