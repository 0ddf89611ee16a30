// Send: send bytes on a socket as one io_uring completion.
#pragma once

#include <cstddef>

#include <tiffany/reactor/io_operation.hpp>

namespace tiffany {

/// `IoResult r = co_await Send{fd, data, size};` may send fewer bytes than
/// asked: loop until all is sent. Never raises SIGPIPE: a closed peer is EPIPE.
struct Send final : IoOperation {
  Send(int fd, const void* data, std::size_t size, int flags = 0) noexcept
      : IoOperation(IoRequest{
            .kind = IoKind::send, .fd = fd, .buffer = const_cast<void*>(data), .length = size, .flags = flags}) {}
};

}  // namespace tiffany
