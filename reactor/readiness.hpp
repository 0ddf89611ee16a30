// ReadWait / HangupWait / WriteWait: PYOS's readiness system calls, on io_uring poll.
#pragma once

#include <poll.h>

#include <tiffany/reactor/io_operation.hpp>

namespace tiffany {

/// `co_await ReadWait{fd}` parks the task until `fd` is readable (or hung up).
/// The result's value() holds the poll revents.
struct ReadWait final : IoOperation {
  explicit ReadWait(int fd) noexcept : IoOperation(IoRequest{.kind = IoKind::poll, .fd = fd, .poll_mask = POLLIN}) {}
};

/// `co_await HangupWait{fd}` parks the task until the peer of socket `fd`
/// has finished sending (FIN: POLLRDHUP) or the socket failed (RST:
/// POLLERR/POLLHUP). Bytes arriving do not end it, so a connection with
/// pipelined requests waiting is not taken for one whose client left. The
/// result's value() holds the poll revents.
struct HangupWait final : IoOperation {
  explicit HangupWait(int fd) noexcept
      : IoOperation(IoRequest{.kind = IoKind::poll, .fd = fd, .poll_mask = POLLRDHUP}) {}
};

/// `co_await WriteWait{fd}` parks the task until `fd` is writable.
struct WriteWait final : IoOperation {
  explicit WriteWait(int fd) noexcept : IoOperation(IoRequest{.kind = IoKind::poll, .fd = fd, .poll_mask = POLLOUT}) {}
};

}  // namespace tiffany
