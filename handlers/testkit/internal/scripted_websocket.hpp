// ScriptedWebSocket: the handler's end of a test kit WebSocket: whole messages in queues, no wire.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>

#include <tiffany/coro/wake_signal.hpp>
#include <tiffany/http/websocket.hpp>

namespace tiffany::testkit {

/// What a handler under PluginHarness::open_websocket gets from
/// accept_websocket; WebSocketClient is the other end. One thread.
class ScriptedWebSocket final : public http::WebSocket {
 public:
  explicit ScriptedWebSocket(std::string subprotocol) : subprotocol_(std::move(subprotocol)) {}

  Task<std::optional<http::WebSocketMessage>> receive() override;
  Task<http::Delivery> send(std::string_view data, bool text) override;
  void close(std::uint16_t code = 1000, std::string_view reason = {}) override;
  bool is_open() const noexcept override { return !client_closed_ && handler_code_ == 0; }
  std::uint16_t close_code() const noexcept override { return code_; }
  std::string_view subprotocol() const noexcept override { return subprotocol_; }

  // The client's side.
  void from_client(http::WebSocketMessage message);
  void client_close(std::uint16_t code);
  bool client_closed() const noexcept { return client_closed_; }
  std::deque<http::WebSocketMessage>& to_client() noexcept { return to_client_; }
  std::size_t waiting_for_client() const noexcept { return to_client_.size(); }
  /// The code the handler closed with (0: none yet).
  std::uint16_t handler_code() const noexcept { return handler_code_; }

 private:
  std::string subprotocol_;
  std::deque<http::WebSocketMessage> from_client_;
  std::deque<http::WebSocketMessage> to_client_;
  WakeSignal arrivals_;  // a message, or a close
  std::uint16_t code_ = 0;          // the first close's, either side
  std::uint16_t handler_code_ = 0;  // the handler's close
  bool client_closed_ = false;
};

}  // namespace tiffany::testkit
