// WebSocketClient: the harness's upgrading sink, and the client's steps against a ScriptedWebSocket.
#include <tiffany/handlers/testkit/websocket_client.hpp>

#include <stdexcept>
#include <utility>

#include <tiffany/handlers/testkit/plugin_harness.hpp>

#include "handlers/testkit/internal/scripted_websocket.hpp"
#include "handlers/testkit/internal/websocket_client_state.hpp"

namespace tiffany::testkit {

Task<http::Delivery> UpgradingSink::write_body(http::Response& response, std::string_view piece) {
  response.mark_head_sent();
  outcome_.streamed.emplace_back(piece);
  co_return http::Delivery::sent;
}

Task<http::WebSocket*> UpgradingSink::upgrade_to_websocket(http::Response& response,
                                                            http::websocket::UpgradeTerms terms,
                                                            http::WebSocketOptions) {
  response.mark_head_sent();
  socket_ = std::make_unique<ScriptedWebSocket>(std::move(terms.subprotocol));
  co_return socket_.get();
}

WebSocketClient::WebSocketClient(std::unique_ptr<State> state) noexcept : state_(std::move(state)) {}
WebSocketClient::WebSocketClient(WebSocketClient&&) noexcept = default;

WebSocketClient::~WebSocketClient() {
  if (!state_ || state_->finished()) return;
  state_->done.cancel();
  state_->harness.run_until_idle();
}

const Outcome& WebSocketClient::handshake() const noexcept { return state_->outcome; }
bool WebSocketClient::accepted() const noexcept { return state_->sink.socket() != nullptr; }

ScriptedWebSocket& WebSocketClient::State::socket() {
  ScriptedWebSocket* socket = sink.socket();
  if (socket == nullptr) throw std::logic_error("WebSocketClient: the handler did not accept the WebSocket");
  return *socket;
}

void WebSocketClient::send_text(std::string data) {
  state_->socket().from_client(http::WebSocketMessage{.text = true, .data = std::move(data)});
}

void WebSocketClient::send_binary(std::string data) {
  state_->socket().from_client(http::WebSocketMessage{.text = false, .data = std::move(data)});
}

std::optional<http::WebSocketMessage> WebSocketClient::next() {
  std::deque<http::WebSocketMessage>& sent = state_->socket().to_client();
  if (sent.empty()) return std::nullopt;
  http::WebSocketMessage message = std::move(sent.front());
  sent.pop_front();
  return message;
}

std::size_t WebSocketClient::waiting() const noexcept {
  const ScriptedWebSocket* socket = state_->sink.socket();
  return socket == nullptr ? 0 : socket->waiting_for_client();
}

void WebSocketClient::close(std::uint16_t code) { state_->socket().client_close(code); }

std::uint16_t WebSocketClient::handler_close_code() const noexcept {
  const ScriptedWebSocket* socket = state_->sink.socket();
  return socket == nullptr ? 0 : socket->handler_code();
}

bool WebSocketClient::handler_finished() const noexcept { return state_->finished(); }

void WebSocketClient::finish() {
  State& state = *state_;
  if (state.result_taken) return;
  state.harness.run_until_idle();
  if (!state.done.finished() && state.sink.socket() != nullptr) state.sink.socket()->client_close(1006);
  for (std::chrono::milliseconds waited{0}; !state.done.finished(); waited += std::chrono::milliseconds(1)) {
    if (waited >= std::chrono::seconds(60)) {
      state.done.cancel();
      state.harness.run_until_idle();
      throw std::runtime_error("the WebSocket handler had not finished 60 s of virtual time after its client closed");
    }
    state.harness.advance(std::chrono::milliseconds(1));
  }
  state.take_result();
}

}  // namespace tiffany::testkit
