// Choosing the I/O backend: io_uring when the host allows it, epoll otherwise; and which one a reactor is.
#pragma once

#include <memory>
#include <string>

#include <tiffany/reactor/reactor.hpp>

namespace tiffany {

enum class BackendChoice { automatic, io_uring, epoll };

struct ChosenReactor {
  std::unique_ptr<Reactor> reactor;
  std::string reason;     // why this backend, for the start-up line
  bool fallback = false;  // `automatic` wanted io_uring and settled for epoll
};

/// Builds the reactor for this thread. `automatic` probes io_uring (ring
/// set-up plus one no-op) and falls back to epoll if that fails (EPERM under
/// a seccomp profile, ENOSYS, memlock limits), saying why. An explicit choice
/// that fails throws std::system_error.
ChosenReactor make_reactor(BackendChoice choice);

}  // namespace tiffany
