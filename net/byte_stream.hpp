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

  // What callers may ask of the stream beneath, so that none needs to know
  // which stream it holds (plugin ABI 7).

  /// True when the bytes are encrypted on the wire (TLS): the kernel can
  /// neither splice nor send a file into them, and the socket's readiness
  /// is not the stream's (see wait_readable).
  virtual bool encrypted() const noexcept { return false; }
  /// The connected socket beneath, for what only the kernel does with it
  /// (splice(2) into a plain stream, a watch for the peer's hang-up); -1
  /// when there is none (a stream inside another protocol).
  virtual int socket() const noexcept { return -1; }
  /// True when a read can make progress without the socket: input the
  /// stream holds already (TLS: ciphertext received or plaintext decrypted,
  /// not yet read). Costs no system call.
  virtual bool has_buffered_input() const noexcept { return false; }
  /// True when a read would find input now without waiting: buffered, or
  /// the socket readable (one poll(2) that does not wait).
  virtual bool input_ready() const noexcept;
  /// Waits, holding no buffer, until a read can make progress: input
  /// buffered, or the socket readable or hung up. ok(), or the error
  /// (EOPNOTSUPP for a stream with neither buffer nor socket).
  virtual Task<IoResult> wait_readable();
  /// Ends our direction once what was written is out (TLS: close_notify,
  /// then a FIN), and, unlike finish(), leaves the peer's bytes to be read.
  virtual void shutdown_write() noexcept;
};

}  // namespace tiffany
