// PlainTransport: a SocketStream per connection.
#include "server/plain_transport.hpp"

#include "server/socket_stream.hpp"

namespace tiffany {

Task<void> PlainTransport::serve(UniqueFd socket, sockaddr_storage peer) {
  SocketStream stream(std::move(socket));
  co_await protocol_->serve(stream, peer);
}

}  // namespace tiffany
