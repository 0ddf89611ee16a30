// ConnectionUpgrade: what accept_websocket asks of the connection a response goes to.
#pragma once

#include <optional>
#include <string>

#include <tiffany/coro/task.hpp>
#include <tiffany/http/response.hpp>
#include <tiffany/http/websocket.hpp>

#include "http/engine/websocket/deflate_negotiation.hpp"

namespace tiffany::http::websocket {

/// What the handshake settled besides the options.
struct UpgradeTerms {
  std::string subprotocol;                 // chosen, or empty
  std::optional<DeflateAgreement> deflate;  // permessage-deflate, when agreed
};

/// Implemented by a connection that can switch protocols (HTTP/1.1's) and
/// by an HTTP/2 stream opened by an extended CONNECT (RFC 8441);
/// accept_websocket finds it behind Response::sink().
class ConnectionUpgrade {
 public:
  /// Sends `response` (the 101 after any responses before it; over
  /// HTTP/2 a 200) and hands the connection (or stream) over to a
  /// WebSocket on `terms`, owned by the connection until the handler
  /// returns. nullptr when it cannot: `response` then holds the refusal
  /// (503 while the server shuts down), or the answer could not be written
  /// (the peer is gone).
  virtual Task<WebSocket*> upgrade_to_websocket(Response& response, UpgradeTerms terms, WebSocketOptions options) = 0;
  /// True when the request asked for the WebSocket by an extended CONNECT
  /// (RFC 8441: no key, answered 200), false for an HTTP/1.1 Upgrade.
  virtual bool websocket_by_connect() const noexcept { return false; }

 protected:
  ~ConnectionUpgrade() = default;
};

}  // namespace tiffany::http::websocket
