// The accept loop: a task per listener that spawns a task per connection.
#pragma once

#include <cstddef>

#include <tiffany/coro/task.hpp>

#include "server/transport/transport.hpp"

namespace tiffany {

class ConnectionTracker;
class ListenerLimits;

/// Accepts connections on `listen_fd` until canceled, spawning
/// `protocol.serve` for each (detached). At the worker's connection limit,
/// or at the listener's share of its own, it pauses until one closes; a
/// connection from an address that has the listener's per-address limit
/// open is closed at once; running out of descriptors or memory backs off
/// instead of spinning; an error that means the socket itself is broken ends
/// the loop with an exception. `protocol`, `tracker` and `limits` must
/// outlive the loop and its connections.
Task<void> accept_loop(int listen_fd, Transport& protocol, ConnectionTracker& tracker,
                       ListenerLimits& limits);

/// Accepts up to `most` of the connections queued on `listen_fd`
/// (non-blocking) right now, without waiting for one, and serves each as
/// accept_loop would (the connection limits aside). Returns how many it took. For a draining
/// worker whose accept loop ended while other acceptors share the socket.
/// Why: io_uring wakes one accept per connection; a wakeup given to an
/// accept being canceled is not passed on to another waiter, so its
/// connection would wait in the queue for the next one to arrive.
std::size_t accept_queued(int listen_fd, Transport& protocol, ConnectionTracker& tracker, ListenerLimits& limits,
                          std::size_t most);

}  // namespace tiffany
