// Accept: take one connection from a listening socket.
#pragma once

#include <sys/socket.h>

#include <tiffany/reactor/io_operation.hpp>

namespace tiffany {

/// `IoResult r = co_await Accept{listen_fd};` r.value() is the new socket
/// (close-on-exec). Pass `peer`/`peer_length` to learn the client's address.
struct Accept final : IoOperation {
  explicit Accept(int listen_fd, sockaddr* peer = nullptr, socklen_t* peer_length = nullptr) noexcept
      : IoOperation(
            IoRequest{.kind = IoKind::accept, .fd = listen_fd, .address = peer, .address_length = peer_length}) {}
};

}  // namespace tiffany
