// accept_websocket: the handshake's checks and refusals, then the connection's switch to WebSocket.
#include <tiffany/http/websocket.hpp>

#include <stdexcept>
#include <utility>

#include "http/engine/websocket/connection_upgrade.hpp"
#include "http/engine/websocket/handshake.hpp"

namespace tiffany::http {
namespace {

void refuse(Response& response, int status, std::string_view why) {
  response.status = status;
  response.headers.set("Content-Type", "text/plain; charset=utf-8");
  response.body.assign(why);
}

Task<WebSocket*> no_websocket() { co_return nullptr; }

}  // namespace

// Why not a coroutine itself: everything here is decided before the first
// wait, so the handshake's refusals and its logic_error come at the call; the
// connection's coroutine does the I/O.
Task<WebSocket*> accept_websocket(Request& request, Response& response, WebSocketOptions options) {
  if (response.streaming()) throw std::logic_error("accept_websocket: the response has already started");
  auto* connection = dynamic_cast<websocket::ConnectionUpgrade*>(response.sink());
  const bool by_connect = connection != nullptr && connection->websocket_by_connect();
  // Why before the handshake's checks: HTTP/2 forbids Upgrade and Connection
  // (RFC 9113 §8.6), so they would answer a 426 asking for what the client
  // cannot send; over HTTP/2 a WebSocket is asked for by CONNECT.
  if (request.version_major >= 2 && !by_connect) {
    refuse(response, 400, "over HTTP/2 a WebSocket is opened by an extended CONNECT (RFC 8441)\n");
    return no_websocket();
  }
  websocket::HandshakeVerdict verdict = by_connect ? websocket::check_connect_handshake(request, options.subprotocols)
                                                   : websocket::check_handshake(request, options.subprotocols);
  if (verdict.status != 0) {
    refuse(response, verdict.status, verdict.why);
    // Why Upgrade on both 426s: RFC 9110 §15.5.22 requires it, naming the protocol to ask for.
    if (verdict.status == 426) response.headers.set("Upgrade", "websocket");
    if (verdict.wrong_version) response.headers.set("Sec-WebSocket-Version", "13");
    return no_websocket();
  }
  if (connection == nullptr) {
    refuse(response, 501, "WebSocket is not served on this connection\n");
    return no_websocket();
  }
  websocket::UpgradeTerms terms;
  terms.subprotocol = std::move(verdict.subprotocol);
  terms.deflate = websocket::negotiate_deflate(request.headers, options.compression);
  response.body.clear();
  if (by_connect) {
    response.status = 200;  // RFC 8441 §5: a 2xx opens the tunnel
  } else {
    response.status = 101;
    response.headers.set("Upgrade", "websocket");
    response.headers.set("Sec-WebSocket-Accept", verdict.accept);
  }
  if (!terms.subprotocol.empty()) response.headers.set("Sec-WebSocket-Protocol", terms.subprotocol);
  if (terms.deflate) response.headers.set("Sec-WebSocket-Extensions", terms.deflate->response);
  return connection->upgrade_to_websocket(response, std::move(terms), std::move(options));
}

}  // namespace tiffany::http
