// WebSocket through the SDK: the ws_probe plugin's handlers (send and return, throw, close, receive in a race,
// send from a second task) seen by a raw client, over plain TCP and TLS.
#include <gtest/gtest.h>

#include <chrono>
#include <cstddef>
#include <string>
#include <thread>

#include "integration/websocket/websocket_fixture.hpp"
#include "integration/websocket/ws_raw_client.hpp"

namespace tiffany::testing {
namespace {

using namespace std::chrono_literals;

constexpr std::uint8_t kText = 0x1, kBinary = 0x2, kClose = 0x8;

const char* transport(bool tls) { return tls ? "TLS" : "plain"; }

class WebSocketPluginTest : public WebSocketTest {};

/// The next frame must be the server's close with `code` (and `reason`); answers it and expects the end.
void expect_server_close(WsRawClient& client, std::uint16_t code, const std::string& reason = "") {
  const std::optional<WsFrame> frame = client.read_data_frame(3s);
  ASSERT_TRUE(frame.has_value()) << "no close frame; closed: " << client.closed();
  ASSERT_EQ(frame->opcode, kClose) << frame->payload;
  EXPECT_EQ(frame->close_code(), code);
  EXPECT_EQ(frame->close_reason(), reason);
  client.send(ws_close_frame(code == 1011 || code == 1001 ? 1000 : code));
  EXPECT_TRUE(client.wait_closed(3s)) << "the connection stayed open after the close handshake";
}

TEST_F(WebSocketPluginTest, MessagesSentBeforeTheHandlerReturnsArriveThenClose1000) {
  for (const bool tls : {false, true}) {
    SCOPED_TRACE(transport(tls));
    WsRawClient client(port(tls), tls);
    ASSERT_TRUE(client.handshake("/three"));
    for (const char* word : {"one", "two", "three"}) {
      const std::optional<WsFrame> frame = client.read_data_frame();
      ASSERT_TRUE(frame.has_value()) << word;
      EXPECT_EQ(frame->opcode, kText);
      EXPECT_EQ(frame->payload, word);
    }
    expect_server_close(client, 1000);
  }
}

TEST_F(WebSocketPluginTest, AHandlerThatThrowsAfterTheAcceptClosesWith1011) {
  for (const bool tls : {false, true}) {
    SCOPED_TRACE(transport(tls));
    WsRawClient client(port(tls), tls);
    ASSERT_TRUE(client.handshake("/throw"));
    expect_server_close(client, 1011);
  }
}

TEST_F(WebSocketPluginTest, AHandlersCloseSendsItsCodeAndReason) {
  for (const bool tls : {false, true}) {
    SCOPED_TRACE(transport(tls));
    WsRawClient client(port(tls), tls);
    ASSERT_TRUE(client.handshake("/close"));
    expect_server_close(client, 4000, "done");
  }
}

/// Message `i` of the race test: sizes from empty to several reads' worth, bytes that say where they are.
std::string numbered_message(int i) {
  const std::size_t size = i % 25 == 0 ? 70'000 + static_cast<std::size_t>(i) : static_cast<std::size_t>(i * 37 % 3000);
  std::string message = "#" + std::to_string(i) + ":";
  while (message.size() < size) message += static_cast<char>('a' + (message.size() + static_cast<std::size_t>(i)) % 26);
  return message;
}

TEST_F(WebSocketPluginTest, AReceiveThatLosesARaceLosesAndCutsNoMessage) {
  for (const bool tls : {false, true}) {
    SCOPED_TRACE(transport(tls));
    WsRawClient client(port(tls), tls);
    ASSERT_TRUE(client.handshake("/race"));
    // The handler races each receive() against a 1 ms Sleep; the messages come in bursts with
    // pauses, and the large ones over many reads, so most receives are canceled mid-wait.
    int next = 0;
    for (int round = 0; round < 40; ++round) {
      const int first = next;
      std::string burst;
      for (int k = 0; k < 10; ++k, ++next) burst += ws_frame(next % 2 ? kBinary : kText, numbered_message(next));
      // Why halves with a pause: a frame cut across writes arrives in two reads.
      const std::size_t half = burst.size() / 2;
      ASSERT_TRUE(client.send(std::string_view(burst).substr(0, half)));
      std::this_thread::sleep_for(std::chrono::milliseconds(round % 4));
      ASSERT_TRUE(client.send(std::string_view(burst).substr(half)));
      for (int i = first; i < next; ++i) {
        const std::optional<WsFrame> echo = client.read_data_frame();
        ASSERT_TRUE(echo.has_value()) << "message " << i << " lost";
        ASSERT_EQ(echo->opcode, i % 2 ? kBinary : kText) << "message " << i << ", got " << echo->payload.substr(0, 12);
        ASSERT_EQ(echo->payload, numbered_message(i)) << "message " << i << " cut or out of order";
      }
    }
    ASSERT_TRUE(client.send(ws_close_frame(1000)));
    expect_server_close(client, 1000);
  }
}

TEST_F(WebSocketPluginTest, ASecondTaskSendingBesideTheEchoLoopInterleavesWholeMessagesInOrder) {
  for (const bool tls : {false, true}) {
    SCOPED_TRACE(transport(tls));
    WsRawClient client(port(tls), tls);
    ASSERT_TRUE(client.handshake("/concurrent"));
    int ticks = 0;
    int echoes = 0;
    constexpr int kEchoes = 60;
    int sent = 0;
    while (ticks < 100 || echoes < kEchoes) {
      if (sent < kEchoes) {
        ASSERT_TRUE(client.send(ws_frame(kText, "echo " + std::to_string(sent) + std::string(sent * 97, '.'))));
        ++sent;
      }
      const std::optional<WsFrame> frame = client.read_data_frame(3s);
      ASSERT_TRUE(frame.has_value()) << "after " << ticks << " ticks and " << echoes << " echoes";
      ASSERT_EQ(frame->opcode, kText);
      ASSERT_TRUE(frame->fin) << "a message in pieces";
      if (frame->payload.starts_with("tick ")) {
        ASSERT_EQ(frame->payload, "tick " + std::to_string(ticks)) << "ticks out of order";
        ++ticks;
      } else {
        ASSERT_EQ(frame->payload, "echo " + std::to_string(echoes) + std::string(echoes * 97, '.'));
        ++echoes;
      }
    }
    EXPECT_EQ(ticks, 100);
    EXPECT_EQ(echoes, kEchoes);
    ASSERT_TRUE(client.send(ws_close_frame(1000)));
    expect_server_close(client, 1000);
  }
}

TEST_F(WebSocketPluginTest, SendsThatDoNotWaitPastMaxQueuedBytesCloseWith1008) {
  for (const bool tls : {false, true}) {
    SCOPED_TRACE(transport(tls));
    WsRawClient client(port(tls), tls);
    ASSERT_TRUE(client.handshake("/flood"));
    // Not reading: the server's writes stall and the handler's queue fills to max_queued_bytes (1 MiB).
    std::this_thread::sleep_for(300ms);
    std::size_t messages = 0;
    std::optional<WsFrame> frame;
    for (;;) {
      frame = client.read_data_frame(3s);
      if (!frame || frame->opcode != kBinary) break;
      ASSERT_EQ(frame->payload, std::string(64 * 1024, 'f')) << "message " << messages << " cut";
      ++messages;
    }
    ASSERT_TRUE(frame.has_value()) << "no close after " << messages << " messages";
    ASSERT_EQ(frame->opcode, kClose);
    EXPECT_EQ(frame->close_code(), 1008);
    EXPECT_EQ(frame->close_reason(), "send queue over its limit");
    EXPECT_GE(messages, 16u) << "closed before its queue reached 1 MiB";
    ASSERT_TRUE(client.send(ws_close_frame(1008)));
    EXPECT_TRUE(client.wait_closed(3s));
  }
}

}  // namespace
}  // namespace tiffany::testing
