// The echo protocol: Recv, then Send until all of it is out, until EOF.
#include "server/echo_protocol.hpp"

#include <cstddef>

#include "reactor/recv.hpp"
#include "reactor/send.hpp"

namespace tiffany {
namespace {
constexpr std::size_t kEchoBufferSize = 16 * 1024;
}

Task<void> EchoProtocol::serve(UniqueFd socket, sockaddr_storage) {
  const int fd = socket.get();
  char buffer[kEchoBufferSize];  // lives in the coroutine frame: no allocation per message
  for (;;) {
    const IoResult received = co_await Recv{fd, buffer, sizeof buffer};
    if (!received || received.bytes() == 0) co_return;  // reset, error, or the peer is done sending
    std::size_t sent = 0;
    while (sent < received.bytes()) {
      const IoResult put = co_await Send{fd, buffer + sent, received.bytes() - sent};
      if (!put) co_return;
      sent += put.bytes();
    }
  }
}

}  // namespace tiffany
