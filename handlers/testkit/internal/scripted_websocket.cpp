// ScriptedWebSocket: queues both ways, closes, and the UTF-8 rule for text.
#include "handlers/testkit/internal/scripted_websocket.hpp"

#include <stdexcept>
#include <utility>

#include <tiffany/http/utf8.hpp>

namespace tiffany::testkit {

Task<std::optional<http::WebSocketMessage>> ScriptedWebSocket::receive() {
  for (;;) {
    if (!from_client_.empty()) {
      http::WebSocketMessage message = std::move(from_client_.front());
      from_client_.pop_front();
      co_return message;
    }
    // Why end on the handler's own close too: the server's WebSocket ends receive() once the
    // client answers that close, which a scripted client always does at once.
    if (client_closed_ || handler_code_ != 0) co_return std::nullopt;
    co_await arrivals_.wait();
  }
}

Task<http::Delivery> ScriptedWebSocket::send(std::string_view data, bool text) {
  if (!is_open()) co_return http::Delivery::closed;
  if (text && !http::is_valid_utf8(data)) throw std::invalid_argument("WebSocket::send: text that is not UTF-8");
  to_client_.push_back(http::WebSocketMessage{.text = text, .data = std::string(data)});
  co_return http::Delivery::sent;
}

void ScriptedWebSocket::close(std::uint16_t code, std::string_view) {
  if (handler_code_ != 0 || client_closed_) return;  // only the first close counts
  handler_code_ = code;
  if (code_ == 0) code_ = code;
  arrivals_.set();
}

void ScriptedWebSocket::from_client(http::WebSocketMessage message) {
  if (client_closed_) throw std::logic_error("WebSocketClient: sending after closing");
  if (message.text && !http::is_valid_utf8(message.data)) {
    throw std::invalid_argument("WebSocketClient: text that is not UTF-8 (a server would close with 1007)");
  }
  from_client_.push_back(std::move(message));
  arrivals_.set();
}

void ScriptedWebSocket::client_close(std::uint16_t code) {
  if (client_closed_) return;
  client_closed_ = true;
  if (code_ == 0) code_ = code;
  arrivals_.set();
}

}  // namespace tiffany::testkit
