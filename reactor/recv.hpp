// Recv: receive bytes from a socket as one io_uring completion.
#pragma once

#include <cstddef>

#include <tiffany/reactor/io_operation.hpp>

namespace tiffany {

/// `IoResult r = co_await Recv{fd, data, size};` r.bytes() == 0 means the
/// peer closed its side. `data` must stay valid until the await returns.
struct Recv final : IoOperation {
  Recv(int fd, void* data, std::size_t size, int flags = 0) noexcept
      : IoOperation(IoRequest{.kind = IoKind::recv, .fd = fd, .buffer = data, .length = size, .flags = flags}) {}
};

}  // namespace tiffany
