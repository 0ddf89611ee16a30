// The test kit's scripted WebSockets (PluginHarness::open_websocket, WebSocketClient): a handler
// accepts, receives and sends whole messages, closes, and its errors and refusals come back.
#include <gtest/gtest.h>

#include <optional>
#include <stdexcept>
#include <string>

#include <tiffany/handlers/testkit/plugin_harness.hpp>
#include <tiffany/http/websocket.hpp>

namespace tiffany::testkit {
namespace {

// Echoes each message with "echo: " before it; "bye" closes with 4000; "boom" throws.
class EchoSocket final : public Handler {
 public:
  Task<void> handle(http::Request& request, http::Response& response) override {
    http::WebSocketOptions options;
    options.subprotocols = {"echo.v1"};
    http::WebSocket* socket = co_await http::accept_websocket(request, response, options);
    if (socket == nullptr) co_return;
    for (;;) {
      std::optional<http::WebSocketMessage> message = co_await socket->receive();
      if (!message) co_return;
      if (message->data == "bye") {
        socket->close(4000, "bye");
        continue;  // receive() now ends
      }
      if (message->data == "boom") throw std::runtime_error("boom");
      const std::string answer = "echo: " + message->data;
      const http::Delivery sent = co_await socket->send(answer, message->text);
      if (sent == http::Delivery::closed) co_return;
    }
  }
};

TEST(TestkitWebSocket, AHandlerAcceptsReceivesAndSendsWholeMessages) {
  PluginHarness harness;
  EchoSocket handler;
  WebSocketClient client =
      harness.open_websocket(handler, RequestBuilder("GET", "/ws").header("Sec-WebSocket-Protocol", "echo.v1"));
  ASSERT_TRUE(client.accepted());
  EXPECT_EQ(client.handshake().status(), 101);
  EXPECT_EQ(client.handshake().header("Sec-WebSocket-Accept").value_or(""), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
  EXPECT_EQ(client.handshake().header("Sec-WebSocket-Protocol").value_or(""), "echo.v1");
  client.send_text("a");
  client.send_binary(std::string("\0\1", 2));
  harness.run_until_idle();
  EXPECT_EQ(client.waiting(), 2u);
  const std::optional<http::WebSocketMessage> first = client.next();
  ASSERT_TRUE(first);
  EXPECT_TRUE(first->text);
  EXPECT_EQ(first->data, "echo: a");
  const std::optional<http::WebSocketMessage> second = client.next();
  ASSERT_TRUE(second);
  EXPECT_FALSE(second->text);
  EXPECT_EQ(second->data, std::string("echo: \0\1", 8));
  EXPECT_FALSE(client.next());
  client.send_text("bye");
  harness.run_until_idle();
  EXPECT_EQ(client.handler_close_code(), 4000);
  EXPECT_TRUE(client.handler_finished());
  client.finish();
}

TEST(TestkitWebSocket, TheClientClosingEndsTheHandlersReceive) {
  PluginHarness harness;
  EchoSocket handler;
  WebSocketClient client = harness.open_websocket(handler, RequestBuilder("GET", "/ws"));
  EXPECT_FALSE(client.handler_finished());
  client.close(1001);
  harness.run_until_idle();
  EXPECT_TRUE(client.handler_finished());
  EXPECT_EQ(client.handler_close_code(), 0);
  EXPECT_THROW(client.send_text("late"), std::logic_error);
  client.finish();
}

TEST(TestkitWebSocket, WhatTheHandlerThrowsComesOutOfFinish) {
  PluginHarness harness;
  EchoSocket handler;
  WebSocketClient client = harness.open_websocket(handler, RequestBuilder("GET", "/ws"));
  client.send_text("boom");
  EXPECT_THROW(client.finish(), std::runtime_error);
}

TEST(TestkitWebSocket, TextThatIsNotUtf8IsRefusedAtTheClient) {
  PluginHarness harness;
  EchoSocket handler;
  WebSocketClient client = harness.open_websocket(handler, RequestBuilder("GET", "/ws"));
  EXPECT_THROW(client.send_text("\xff"), std::invalid_argument);
  client.finish();
}

TEST(TestkitWebSocket, AHandshakeTheHandlerRefusesIsItsAnswerAndRunAnswers501) {
  PluginHarness harness;
  EchoSocket handler;
  // A handshake with another version: the SDK's own refusal, 426.
  WebSocketClient old = harness.open_websocket(handler, RequestBuilder("GET", "/ws").header("Sec-WebSocket-Version", "8"));
  EXPECT_FALSE(old.accepted());
  EXPECT_EQ(old.handshake().status(), 426);
  EXPECT_THROW(old.send_text("x"), std::logic_error);
  // run() has no connection to switch: the answer a protocol that cannot switch gets.
  EXPECT_EQ(harness.run(handler, RequestBuilder("GET", "/ws")
                                     .header("Upgrade", "websocket")
                                     .header("Connection", "Upgrade")
                                     .header("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
                                     .header("Sec-WebSocket-Version", "13"))
                .status(),
            501);
}

}  // namespace
}  // namespace tiffany::testkit
