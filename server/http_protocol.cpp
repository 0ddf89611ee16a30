// The HTTP protocol: an HttpConnection per connection.
#include "server/http_protocol.hpp"

#include "server/connection_protocol.hpp"
#include "server/http/http_connection.hpp"

namespace tiffany {

Task<void> HttpProtocol::serve(ByteStream& stream, sockaddr_storage peer) {
  http::HttpConnection connection(stream, site_, format_peer(peer));
  co_await connection.run();
}

}  // namespace tiffany
