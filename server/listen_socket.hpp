// Listening sockets: open, bind and report the address actually bound.
#pragma once

#include <string>

#include <tiffany/reactor/unique_fd.hpp>

#include "conf/listen_address.hpp"

namespace tiffany {

/// A bound, listening TCP socket and the address the kernel gave it.
struct ListenSocket {
  UniqueFd fd;
  ListenAddress bound;  // with the real port when the config asked for port 0
};

/// Opens a listening socket (non-blocking, SO_REUSEADDR and SO_REUSEPORT so
/// each worker can have its own on the same port; backlog 4096). Throws
/// std::system_error naming the failing step, e.g. "bind: Address already in use".
ListenSocket open_listen_socket(const ListenAddress& address);

/// Checks that no socket listens on `address` by binding one without
/// SO_REUSEPORT (and closing it again), so that open_listen_socket cannot
/// silently join another process's SO_REUSEPORT group. Returns `address` with
/// the port the kernel chose when it asked for port 0. Throws std::system_error
/// like open_listen_socket; EADDRINUSE means the address is taken, and is
/// thrown only after the address stayed taken for 200 ms (blocks meanwhile).
ListenAddress probe_unshared_address(const ListenAddress& address);

}  // namespace tiffany
