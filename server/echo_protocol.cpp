// The echo protocol: read, then write all of it back, until EOF.
#include "server/echo_protocol.hpp"

#include <cstddef>

namespace tiffany {
namespace {
constexpr std::size_t kEchoBufferSize = 16 * 1024;
}

Task<void> EchoProtocol::serve(ByteStream& stream, sockaddr_storage) {
  char buffer[kEchoBufferSize];  // lives in the coroutine frame: no allocation per message
  for (;;) {
    const IoResult received = co_await stream.read(buffer, sizeof buffer);
    if (!received) co_return;  // reset or error
    if (received.bytes() == 0) {
      stream.finish();  // the peer is done sending: end our side too (TLS: close_notify)
      co_return;
    }
    const IoResult sent = co_await stream.write(buffer, received.bytes());
    if (!sent) co_return;
  }
}

}  // namespace tiffany
