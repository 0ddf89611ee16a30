// The HTTP protocol: a socket stream and an HttpConnection per connection.
#include "server/http_protocol.hpp"

#include "server/http/http_connection.hpp"
#include "server/socket_stream.hpp"

namespace tiffany {

Task<void> HttpProtocol::serve(UniqueFd socket, sockaddr_storage peer) {
  SocketStream stream(std::move(socket));
  http::HttpConnection connection(stream, site_, format_peer(peer));
  co_await connection.run();
}

}  // namespace tiffany
