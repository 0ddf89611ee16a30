// SocketStream: Recv, Send-until-done, and a lingering half-close.
#include <tiffany/net/socket_stream.hpp>

#include <fcntl.h>
#include <sys/sendfile.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <climits>

#include <tiffany/reactor/readiness.hpp>
#include <tiffany/reactor/recv.hpp>
#include <tiffany/reactor/recv_pooled.hpp>
#include <tiffany/reactor/send.hpp>
#include <tiffany/reactor/send_message.hpp>
#include <tiffany/reactor/socket_calls.hpp>

namespace tiffany {
namespace {
constexpr std::size_t kMaxSendFileChunk = 4 * 1024 * 1024;  // per call: keeps the count within an IoResult
constexpr std::size_t kMaxGatheredPieces = IOV_MAX;  // per sendmsg: it refuses more (EMSGSIZE)
}  // namespace

Task<IoResult> SocketStream::read(char* data, std::size_t size) { co_return co_await Recv{fd_, data, size}; }

Task<IoResult> SocketStream::read_pooled(ReadLease& lease) { co_return co_await RecvPooled{fd_, lease}; }

Task<IoResult> SocketStream::write(const char* data, std::size_t size) {
  std::size_t sent = 0;
  while (sent < size) {
    const IoResult put = co_await Send{fd_, data + sent, size - sent};
    if (!put) co_return put;
    sent += put.bytes();
  }
  co_return IoResult{0};  // success; callers wanted all of it, and a size could overflow the int
}

Task<IoResult> SocketStream::write_gather(std::span<iovec> pieces) {
  std::size_t first = 0;  // the first piece not yet sent whole
  while (first < pieces.size() && pieces[first].iov_len == 0) ++first;
  while (first < pieces.size()) {
    msghdr message{};
    message.msg_iov = pieces.data() + first;
    // Why capped: sendmsg refuses more than IOV_MAX vectors; the rest go in the next call.
    message.msg_iovlen = std::min<std::size_t>(pieces.size() - first, kMaxGatheredPieces);
    const IoResult put = co_await SendMessage{fd_, &message};
    if (!put) co_return put;
    // Why: a partial send stops anywhere, even inside a piece; skip what went.
    auto sent = static_cast<std::size_t>(put.bytes());
    while (first < pieces.size() && sent >= pieces[first].iov_len) {
      sent -= pieces[first].iov_len;
      ++first;
    }
    if (sent > 0) {
      pieces[first].iov_base = static_cast<char*>(pieces[first].iov_base) + sent;
      pieces[first].iov_len -= sent;
    }
  }
  co_return IoResult{0};
}

Task<IoResult> SocketStream::send_file_some(int file_fd, std::uint64_t offset, std::size_t max) {
  if (!nonblocking_) {
    // Why: io_uring accepts blocking sockets (its own operations never
    // block the thread), but sendfile(2) would wait in the kernel for a slow
    // peer and stall the whole worker.
    if (SocketCalls::current().set_nonblocking(fd_) < 0) co_return IoResult{-errno};
    nonblocking_ = true;
  }
  const std::size_t chunk = std::min(max, kMaxSendFileChunk);
  for (;;) {
    off_t at = static_cast<off_t>(offset);
    const ssize_t sent = SocketCalls::current().sendfile(fd_, file_fd, &at, chunk);
    if (sent >= 0) co_return IoResult{static_cast<int>(sent)};
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) co_return IoResult{-errno};
    const IoResult ready = co_await WriteWait{fd_};  // the socket buffer is full: wait for room
    if (!ready) co_return ready;
  }
}

void SocketStream::finish() noexcept { finish_socket(fd_); }

void finish_socket(int fd) noexcept {
  SocketCalls& calls = SocketCalls::current();
  calls.shutdown(fd, SHUT_WR);
  // Why: closing with unread input makes the kernel send RST, which can
  // destroy our last response in the peer's buffer before it reads it.
  char sink[4096];
  for (int i = 0; i < 16 && calls.recv(fd, sink, sizeof sink, MSG_DONTWAIT) > 0; ++i) {
  }
}

}  // namespace tiffany
