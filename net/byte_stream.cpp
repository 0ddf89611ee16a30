// ByteStream's defaults: pooled reads through a spare buffer, gathered writes piece by piece, file sending through a spare read buffer.
#include <tiffany/net/byte_stream.hpp>

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include <tiffany/reactor/readiness.hpp>
#include <tiffany/reactor/socket_calls.hpp>

#include "reactor/engine/spare_read_buffers.hpp"

namespace tiffany {

Task<IoResult> ByteStream::read_pooled(ReadLease& lease) {
  ReadLease buffer = SpareReadBuffers::for_this_thread().take();
  const IoResult got = co_await read(buffer.data(), kReadBufferSize);
  if (got && got.bytes() > 0) {
    buffer.set_size(got.bytes());
    lease = std::move(buffer);
  }
  co_return got;
}

Task<IoResult> ByteStream::write_gather(std::span<iovec> pieces) {
  for (const iovec& piece : pieces) {
    if (piece.iov_len == 0) continue;
    const IoResult written = co_await write(static_cast<const char*>(piece.iov_base), piece.iov_len);
    if (!written) co_return written;
  }
  co_return IoResult{0};
}

Task<IoResult> ByteStream::send_file_some(int file_fd, std::uint64_t offset, std::size_t max) {
  ReadLease buffer = SpareReadBuffers::for_this_thread().take();
  const std::size_t want = std::min(max, kReadBufferSize);
  ssize_t got = -1;
  do {
    got = ::pread(file_fd, buffer.data(), want, static_cast<off_t>(offset));
  } while (got < 0 && errno == EINTR);
  if (got < 0) co_return IoResult{-errno};
  if (got == 0) co_return IoResult{0};
  const IoResult written = co_await write(buffer.data(), static_cast<std::size_t>(got));
  if (!written) co_return written;
  co_return IoResult{static_cast<int>(got)};
}

bool ByteStream::input_ready() const noexcept {
  if (has_buffered_input()) return true;
  const int fd = socket();
  if (fd < 0) return false;
  pollfd ready{fd, POLLIN, 0};
  return SocketCalls::current().poll(&ready, 1, 0) > 0;
}

Task<IoResult> ByteStream::wait_readable() {
  if (has_buffered_input()) co_return IoResult{0};
  const int fd = socket();
  if (fd < 0) co_return IoResult{-EOPNOTSUPP};
  const IoResult polled = co_await ReadWait(fd);
  co_return polled ? IoResult{0} : polled;
}

void ByteStream::shutdown_write() noexcept {
  if (socket() >= 0) SocketCalls::current().shutdown(socket(), SHUT_WR);
}

}  // namespace tiffany
