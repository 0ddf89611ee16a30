// ByteStream: the byte pipe a protocol speaks over (a socket today, TLS next).
#pragma once

#include <cstddef>

#include "coro/task.hpp"
#include "reactor/io_result.hpp"

namespace tiffany {

/// A connected, ordered byte stream. Protocol code (HTTP, echo) is written
/// against this interface only, so a TLS stream can replace the socket
/// without touching it. Used by one task at a time.
class ByteStream {
 public:
  virtual ~ByteStream() = default;
  /// Reads up to `size` bytes; bytes() == 0 means the peer finished sending.
  virtual Task<IoResult> read(char* data, std::size_t size) = 0;
  /// Writes all `size` bytes (looping over partial writes); ok() (value 0) or the error.
  virtual Task<IoResult> write(const char* data, std::size_t size) = 0;
  /// Ends our direction after a last response and drops input that is
  /// already waiting, so the peer reads that response instead of a reset.
  virtual void finish() noexcept = 0;
};

}  // namespace tiffany
