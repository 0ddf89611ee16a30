// accept_websocket: the handshake's checks and refusals, then the connection's switch to WebSocket.
#include <tiffany/http/websocket.hpp>

#include <stdexcept>
#include <utility>

#include "http/internal/websocket/connection_upgrade.hpp"
#include "http/internal/websocket/handshake.hpp"

namespace tiffany::http {
namespace {

void refuse(Response& response, int status, std::string_view why) {
  response.status = status;
  response.headers.set("Content-Type", "text/plain; charset=utf-8");
  response.body.assign(why);
}

}  // namespace

Task<WebSocket*> accept_websocket(Request& request, Response& response, WebSocketOptions options) {
  if (response.streaming()) throw std::logic_error("accept_websocket: the response has already started");
  // Why before the handshake's checks: HTTP/2 forbids Upgrade and Connection
  // (RFC 9113 §8.6), so they would answer a 426 asking for what the client
  // cannot send; the answer is that this protocol cannot switch.
  if (request.version_major >= 2) {
    refuse(response, 501, "WebSocket is served over HTTP/1.1 only\n");
    co_return nullptr;
  }
  websocket::HandshakeVerdict verdict = websocket::check_handshake(request, options.subprotocols);
  if (verdict.status != 0) {
    refuse(response, verdict.status, verdict.why);
    // Why Upgrade on both 426s: RFC 9110 §15.5.22 requires it, naming the protocol to ask for.
    if (verdict.status == 426) response.headers.set("Upgrade", "websocket");
    if (verdict.wrong_version) response.headers.set("Sec-WebSocket-Version", "13");
    co_return nullptr;
  }
  auto* connection = dynamic_cast<websocket::ConnectionUpgrade*>(response.sink());
  if (connection == nullptr) {
    refuse(response, 501, "WebSocket is served over HTTP/1.1 only\n");
    co_return nullptr;
  }
  response.status = 101;
  response.body.clear();
  response.headers.set("Upgrade", "websocket");
  response.headers.set("Sec-WebSocket-Accept", verdict.accept);
  if (!verdict.subprotocol.empty()) response.headers.set("Sec-WebSocket-Protocol", verdict.subprotocol);
  co_return co_await connection->upgrade_to_websocket(response, std::move(verdict.subprotocol), options);
}

}  // namespace tiffany::http
