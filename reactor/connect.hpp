// Connect: connect a socket to a peer as one io_uring completion.
#pragma once

#include <sys/socket.h>

#include <tiffany/reactor/io_operation.hpp>

namespace tiffany {

/// `IoResult r = co_await Connect{fd, address, length};` r is 0 or an errno.
/// `address` must stay valid until the await returns.
struct Connect final : IoOperation {
  Connect(int fd, const sockaddr* address, socklen_t length) noexcept
      : IoOperation(IoRequest{
            .kind = IoKind::connect, .fd = fd, .address = const_cast<sockaddr*>(address), .connect_length = length}) {}
};

}  // namespace tiffany
