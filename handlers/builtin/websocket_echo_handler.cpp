// websocket_echo: receive, send back, until the connection closes.
#include "handlers/builtin/websocket_echo_handler.hpp"

#include <optional>

#include "handlers/builtin/websocket_params.hpp"

namespace tiffany {

WebSocketEchoHandler::WebSocketEchoHandler(const HandlerParams& params) : options_(websocket_options_from(params)) {}

Task<void> WebSocketEchoHandler::handle(http::Request& request, http::Response& response) {
  http::WebSocket* socket = co_await http::accept_websocket(request, response, options_);
  if (socket == nullptr) co_return;  // `response` holds the refusal
  for (;;) {
    std::optional<http::WebSocketMessage> message = co_await socket->receive();
    if (!message) break;
    const http::Delivery sent = co_await socket->send(message->data, message->text);
    if (sent == http::Delivery::closed) break;
  }
}

}  // namespace tiffany
