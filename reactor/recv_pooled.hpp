// RecvPooled: receive into a buffer the reactor lends when bytes arrive.
#pragma once

#include <tiffany/reactor/io_operation.hpp>
#include <tiffany/reactor/read_lease.hpp>

namespace tiffany {

/// `IoResult r = co_await RecvPooled{fd, lease};` waits for bytes without
/// holding a buffer; on success `lease` holds them (r.bytes() of them) until
/// it is dropped. r.bytes() == 0 means the peer closed its side. With
/// io_uring the kernel picks the buffer from the reactor's provided-buffer
/// ring; otherwise a spare is taken only once the socket is readable.
struct RecvPooled final : IoOperation {
  RecvPooled(int fd, ReadLease& lease) noexcept
      : IoOperation(IoRequest{.kind = IoKind::recv_pooled, .fd = fd, .length = kReadBufferSize}), lease_(lease) {}
  IoResult await_resume() {
    const IoResult result = IoOperation::await_resume();
    lease_ = take_buffer();
    return result;
  }

 private:
  ReadLease& lease_;
};

}  // namespace tiffany
