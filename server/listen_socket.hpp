// Listening sockets: open, bind and report the address actually bound.
#pragma once

#include <string>

#include "conf/listen_address.hpp"
#include "reactor/unique_fd.hpp"

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

}  // namespace tiffany
