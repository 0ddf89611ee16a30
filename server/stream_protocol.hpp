// StreamProtocol: what runs over an established connection (echo, HTTP),
// whatever carries it: a plain socket or TLS.
#pragma once

#include <sys/socket.h>

#include "coro/task.hpp"
#include "server/byte_stream.hpp"

namespace tiffany {

/// One per listener, shared by all its connections; must outlive them. A
/// transport (PlainTransport, TlsTransport) makes the stream and calls serve.
class StreamProtocol {
 public:
  virtual ~StreamProtocol() = default;
  /// Serves one connection until it ends. `stream` outlives the call; the
  /// transport closes the connection afterwards.
  virtual Task<void> serve(ByteStream& stream, sockaddr_storage peer) = 0;
  /// "echo", "http": for start-up lines.
  virtual const char* name() const noexcept = 0;
};

}  // namespace tiffany
