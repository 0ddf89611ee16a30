// SocketStream: Recv, Send-until-done, and a lingering half-close.
#include "server/socket_stream.hpp"

#include <sys/socket.h>

#include "reactor/recv.hpp"
#include "reactor/recv_pooled.hpp"
#include "reactor/send.hpp"

namespace tiffany {

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

void SocketStream::finish() noexcept { finish_socket(fd_); }

void finish_socket(int fd) noexcept {
  ::shutdown(fd, SHUT_WR);
  // Why: closing with unread input makes the kernel send RST, which can
  // destroy our last response in the peer's buffer before it reads it.
  char sink[4096];
  for (int i = 0; i < 16 && ::recv(fd, sink, sizeof sink, MSG_DONTWAIT) > 0; ++i) {
  }
}

}  // namespace tiffany
