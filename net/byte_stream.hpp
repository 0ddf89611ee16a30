// ByteStream: the byte pipe a protocol speaks over (a socket or TLS).
#pragma once

#include <sys/uio.h>

#include <cstddef>
#include <span>
#include <string_view>

#include <tiffany/coro/task.hpp>
#include <tiffany/reactor/io_result.hpp>
#include <tiffany/reactor/read_lease.hpp>

namespace tiffany {

/// A connected, ordered byte stream. Protocol code (HTTP, echo) is written
/// against this interface only, so a TLS stream can replace the socket
/// without touching it. Used by one task at a time.
class ByteStream {
 public:
  virtual ~ByteStream() = default;
  /// Reads up to `size` bytes; bytes() == 0 means the peer finished sending.
  virtual Task<IoResult> read(char* data, std::size_t size) = 0;
  /// Reads some bytes into a buffer lent by the worker (`lease` holds them
  /// on success), so a reader waiting for input holds no buffer. This
  /// default waits in read() with a spare; SocketStream waits without one.
  virtual Task<IoResult> read_pooled(ReadLease& lease);
  /// Writes all `size` bytes (looping over partial writes); ok() (value 0) or the error.
  virtual Task<IoResult> write(const char* data, std::size_t size) = 0;
  /// True when write_gather() sends its pieces from where they are (a plain
  /// socket's sendmsg); false when it would copy or transform them anyway
  /// (TLS encrypts), so the caller may as well join them into one buffer.
  virtual bool gathers_writes() const noexcept { return false; }
  /// Writes all the bytes of `pieces`, in order (looping over partial
  /// writes); ok() (value 0) or the error. `pieces` is scratch: the entries
  /// may be changed as bytes go. This default writes piece after piece.
  virtual Task<IoResult> write_gather(std::span<iovec> pieces);
  /// Sends some of the `max` bytes of file `file_fd` at `offset` once the
  /// peer can take them: how many went (0: the file ended) or the error.
  /// This default reads into a spare buffer and writes it (what TLS must
  /// do); a plain socket sends from the page cache with no copy.
  virtual Task<IoResult> send_file_some(int file_fd, std::uint64_t offset, std::size_t max);
  /// Ends our direction after a last response and drops input that is
  /// already waiting, so the peer reads that response instead of a reset.
  virtual void finish() noexcept = 0;
  /// The application protocol agreed on in a TLS handshake (ALPN, "h2"), or
  /// empty (no TLS, or none agreed).
  virtual std::string_view alpn() const noexcept { return {}; }
  /// After finish(): waits for the peer's next bytes and drops them, holding
  /// a buffer only while they are in hand. Returns how many arrived (0: the
  /// peer finished sending) or the error. For lingering_close.
  virtual Task<IoResult> discard_some() {
    ReadLease dropped;
    co_return co_await read_pooled(dropped);
  }
};

}  // namespace tiffany
