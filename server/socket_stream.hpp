// SocketStream: ByteStream over a TCP socket, with io_uring Recv/Send.
#pragma once

#include "reactor/unique_fd.hpp"
#include "server/byte_stream.hpp"

namespace tiffany {

/// Owns the socket; closes it when destroyed.
class SocketStream final : public ByteStream {
 public:
  explicit SocketStream(UniqueFd socket) noexcept : socket_(std::move(socket)) {}

  Task<IoResult> read(char* data, std::size_t size) override;
  Task<IoResult> write(const char* data, std::size_t size) override;
  void finish() noexcept override;
  int fd() const noexcept { return socket_.get(); }

 private:
  UniqueFd socket_;
};

/// ByteStream::finish for a socket: half-closes it (SHUT_WR) and drops input
/// that is already waiting, without blocking. The socket stays open.
void finish_socket(int fd) noexcept;

}  // namespace tiffany
