// WebSocketClient: the client's end of a WebSocket a handler accepted under PluginHarness (SDK test kit).
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>

#include <tiffany/coro/scheduler.hpp>
#include <tiffany/http/websocket.hpp>

namespace tiffany::testkit {

struct Outcome;
class ScriptedWebSocket;

/// Made by PluginHarness::open_websocket, which runs the handler as a task
/// that goes on after the handshake. The handler's WebSocket is a scripted
/// one: what the client sends arrives whole at its receive(); what it sends
/// is kept here, whole, in order; no bytes, frames or back-pressure (send
/// never waits), and text is still checked for UTF-8 both ways. Drive the
/// handler with the harness (run_until_idle, advance) between steps:
///
///   auto client = harness.open_websocket(*chat, RequestBuilder("GET", "/chat?name=ann"));
///   ASSERT_TRUE(client.accepted());
///   client.send_text("hi");
///   harness.run_until_idle();
///   EXPECT_EQ(client.next()->data, R"({"from":"ann","room":"lobby","text":"hi"})");
///   client.close();
///   client.finish();  // runs the handler to its end; rethrows what it threw
///
/// Destroying it unfinished cancels the handler. One thread; the harness
/// must outlive it.
class WebSocketClient {
 public:
  WebSocketClient(WebSocketClient&&) noexcept;
  WebSocketClient& operator=(WebSocketClient&&) = delete;
  ~WebSocketClient();

  /// The handshake's answer as the handler left it: 101 with its headers
  /// (Upgrade, Sec-WebSocket-Accept, the subprotocol) when it accepted,
  /// otherwise the response it returned (a refusal, say).
  const Outcome& handshake() const noexcept;
  bool accepted() const noexcept;

  /// A message for the handler's receive(); std::logic_error once the client closed.
  void send_text(std::string data);
  void send_binary(std::string data);
  /// The oldest message the handler sent and nobody took yet.
  std::optional<http::WebSocketMessage> next();
  /// How many the handler sent that wait to be taken.
  std::size_t waiting() const noexcept;
  /// Closes as a client would: the handler's receive() returns nothing,
  /// and its close_code() says `code`.
  void close(std::uint16_t code = 1000);
  /// The code the handler closed with, 0 while it has not.
  std::uint16_t handler_close_code() const noexcept;
  /// The handler has returned (or thrown).
  bool handler_finished() const noexcept;
  /// Runs the handler to its end (closing first with 1006, as a vanished
  /// client would, if it needs a nudge: a handler waiting for the client
  /// to speak would wait forever); rethrows what it threw.
  void finish();

 private:
  friend class PluginHarness;
  struct State;
  explicit WebSocketClient(std::unique_ptr<State> state) noexcept;
  std::unique_ptr<State> state_;
};

}  // namespace tiffany::testkit
