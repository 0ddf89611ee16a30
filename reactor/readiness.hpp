// ReadWait / WriteWait: PYOS's readiness system calls, on io_uring poll.
#pragma once

#include <poll.h>

#include <tiffany/reactor/io_operation.hpp>

namespace tiffany {

/// `co_await ReadWait{fd}` parks the task until `fd` is readable (or hung up).
/// The result's value() holds the poll revents.
struct ReadWait final : IoOperation {
  explicit ReadWait(int fd) noexcept : IoOperation(IoRequest{.kind = IoKind::poll, .fd = fd, .poll_mask = POLLIN}) {}
};

/// `co_await WriteWait{fd}` parks the task until `fd` is writable.
struct WriteWait final : IoOperation {
  explicit WriteWait(int fd) noexcept : IoOperation(IoRequest{.kind = IoKind::poll, .fd = fd, .poll_mask = POLLOUT}) {}
};

}  // namespace tiffany
