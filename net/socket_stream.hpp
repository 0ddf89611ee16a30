// SocketStream: ByteStream over a TCP socket, with Recv/Send awaitables.
#pragma once

#include <tiffany/net/byte_stream.hpp>
#include <tiffany/reactor/unique_fd.hpp>

namespace tiffany {

/// Speaks over a socket: one it does not own (the server's connections,
/// whose owner closes it), or one it owns and closes (tcp_connect's).
class SocketStream final : public ByteStream {
 public:
  explicit SocketStream(int fd) noexcept : fd_(fd) {}
  explicit SocketStream(UniqueFd socket) noexcept : owned_(std::move(socket)), fd_(owned_.get()) {}

  Task<IoResult> read(char* data, std::size_t size) override;
  /// Waits without a buffer: the reactor lends one when bytes arrive.
  Task<IoResult> read_pooled(ReadLease& lease) override;
  Task<IoResult> write(const char* data, std::size_t size) override;
  bool gathers_writes() const noexcept override { return true; }
  /// sendmsg(2) of every piece at once, again from where a partial send stopped.
  Task<IoResult> write_gather(std::span<iovec> pieces) override;
  /// sendfile(2) whenever the socket can take more, waiting for writability
  /// in between: no user-space buffer however slowly the peer reads.
  Task<IoResult> send_file_some(int file_fd, std::uint64_t offset, std::size_t max) override;
  void finish() noexcept override;
  int socket() const noexcept override { return fd_; }
  int fd() const noexcept { return fd_; }

 private:
  UniqueFd owned_;  // empty when the socket belongs to someone else
  int fd_;
  bool nonblocking_ = false;  // set for sendfile, which has no per-call flag
};

/// ByteStream::finish for a socket: half-closes it (SHUT_WR) and drops input
/// that is already waiting, without blocking. The socket stays open.
void finish_socket(int fd) noexcept;

}  // namespace tiffany
