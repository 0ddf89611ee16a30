// WebSocketSession's lifetime: once finished and let go by its connection, the session and its tasks are freed
// while the worker runs on (not at the scheduler's teardown), and the metrics say how many are still in memory.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <tiffany/coro/scheduler.hpp>
#include <tiffany/coro/task.hpp>

#include "handlers/engine/websocket_metrics.hpp"
#include "server/websocket/websocket_session.hpp"
#include "support/scripted_stream.hpp"

namespace tiffany::http {
namespace {

using testing::ScriptedStream;

// A client's frame (masked, key 0, so the payload goes as it is); payloads under 126 bytes.
std::string client_frame(std::uint8_t opcode, const std::string& payload) {
  std::string frame;
  frame.push_back(static_cast<char>(0x80 | opcode));
  frame.push_back(static_cast<char>(0x80 | payload.size()));
  frame.append(4, '\0');
  return frame + payload;
}

std::string client_close(std::uint16_t code) {
  return client_frame(0x8, std::string{static_cast<char>(code >> 8), static_cast<char>(code & 0xff)});
}

struct Seen {
  std::weak_ptr<WebSocketSession> session;
  std::vector<std::string> messages;
};

// What a connection does with a session: make it, start it, hand it to a handler (here: receive
// until the end), finish it, drop it.
Task<void> serve_session(ByteStream& stream, WebSocketMetrics& metrics, Seen& seen) {
  auto session = std::make_shared<WebSocketSession>(stream, std::string(), websocket::UpgradeTerms{},
                                                    WebSocketOptions{}, nullptr, &metrics);
  seen.session = session;
  session->start();
  for (;;) {
    std::optional<WebSocketMessage> message = co_await session->receive();
    if (!message) break;
    seen.messages.push_back(message->data);
  }
  co_await session->finish(websocket::close_code::normal);
}

TEST(WebSocketSessionLifetime, AFinishedSessionIsFreedWhileTheWorkerRuns) {
  WebSocketMetrics metrics("test");
  Scheduler scheduler;
  std::vector<std::unique_ptr<ScriptedStream>> streams;
  std::vector<Seen> seen(3);
  for (Seen& one : seen) {
    streams.push_back(std::make_unique<ScriptedStream>(
        std::vector<std::string>{client_frame(0x1, "hello") + client_frame(0x2, "bytes") + client_close(1000)}));
    (void)scheduler.spawn(serve_session(*streams.back(), metrics, one));
  }
  scheduler.run();

  // Why before the scheduler goes: its teardown frees whatever is left, which hid the leak.
  for (const Seen& one : seen) {
    EXPECT_EQ(one.messages, (std::vector<std::string>{"hello", "bytes"}));
    EXPECT_TRUE(one.session.expired()) << "a finished session is still held (by its own tasks' frames)";
  }
  EXPECT_EQ(scheduler.task_count(), 0u) << "finished reader or writer tasks are still in the task table";
  EXPECT_EQ(metrics.connections.load(), 3u);
  EXPECT_EQ(metrics.ended.load(), 3u);
  EXPECT_EQ(metrics.connections.load() - metrics.freed.load(), 0u) << "sessions in memory";
}

TEST(WebSocketSessionLifetime, ASessionWhosePeerVanishedIsFreedToo) {
  WebSocketMetrics metrics("test");
  Scheduler scheduler;
  // A message, then the connection ends without a close frame (1006).
  ScriptedStream stream({client_frame(0x1, "last words")});
  Seen seen;
  (void)scheduler.spawn(serve_session(stream, metrics, seen));
  scheduler.run();
  EXPECT_EQ(seen.messages, (std::vector<std::string>{"last words"}));
  EXPECT_TRUE(seen.session.expired());
  EXPECT_EQ(scheduler.task_count(), 0u);
  EXPECT_EQ(metrics.closes_abnormal.load(), 1u);
  EXPECT_EQ(metrics.connections.load() - metrics.freed.load(), 0u);
}

}  // namespace
}  // namespace tiffany::http
