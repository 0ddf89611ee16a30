// The accept loop: a task per listener that spawns a task per connection.
#pragma once

#include "coro/task.hpp"
#include "reactor/unique_fd.hpp"

namespace tiffany {

/// A protocol's connection coroutine: owns the socket it is given.
using ConnectionHandler = Task<void> (*)(UniqueFd socket);

/// Accepts connections on `listen_fd` forever, spawning `handler` for each
/// (detached). Running out of descriptors or memory backs off instead of
/// spinning; an error that means the socket itself is broken ends the loop
/// with an exception.
Task<void> accept_loop(int listen_fd, ConnectionHandler handler);

}  // namespace tiffany
