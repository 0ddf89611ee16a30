// websocket_echo: a WebSocket endpoint that sends every message back as it came (text or binary).
#pragma once

#include <tiffany/handlers/handler.hpp>
#include <tiffany/handlers/handler_params.hpp>
#include <tiffany/http/websocket.hpp>

namespace tiffany {

/// Accepts the WebSocket handshake (refusals as accept_websocket answers
/// them) and echoes each message until the client closes. Params: see
/// websocket_options_from.
class WebSocketEchoHandler final : public Handler {
 public:
  explicit WebSocketEchoHandler(const HandlerParams& params);
  Task<void> handle(http::Request& request, http::Response& response) override;

 private:
  http::WebSocketOptions options_;
};

}  // namespace tiffany
