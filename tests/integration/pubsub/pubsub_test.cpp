// The pubsub handler end to end: Python's websockets clients (pubsub_client.py) against the real binary.
// Channels span a process's workers; with Redis (a redis-server this test starts on loopback) they span
// two Tiffany instances, and survive Redis restarting. A client that stops reading is dropped (1008)
// while one that reads gets everything. The chat example plugin (chat_client.py), on the SDK's channels,
// does the same for rooms: across workers, and through Redis across instances.
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "integration/pubsub/pubsub_fixture.hpp"

namespace tiffany::testing {
namespace {

using namespace std::chrono_literals;

TEST(PubSub, AMessageReachesEverySubscriberOnEveryWorkerInOrder) {
  ServerProcess server(config(2, "{}"));
  const int port = server.port_of("ws");
  // 16 clients on two workers: SO_REUSEPORT spreads them, so both hold subscribers.
  const std::string seen = drive({"fanout", "--ports", std::to_string(port), "--subscribers", "16", "--messages", "20"});
  EXPECT_TRUE(has(seen, "\"subscribers\": 16")) << seen;
  // /metrics counts them: 17 connections (16 and the publisher); received, 16 subscribes, 1
  // unsubscribe and 21 publishes; sent, 16 + 1 answers, 16 x 20 deliveries and 15 of the last one;
  // and once the clients have closed, none open and all 17 closed normally.
  const std::string url = "http://127.0.0.1:" + std::to_string(port) + "/metrics";
  std::string metrics;
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  do {
    metrics = run_program("curl", {"-sS", "--max-time", "5", url}, 10s).out;
  } while (!has(metrics, "tiffany_websocket_open{listener=\"ws\"} 0") && std::chrono::steady_clock::now() < deadline &&
           (std::this_thread::sleep_for(50ms), true));
  EXPECT_TRUE(has(metrics, "tiffany_websocket_connections_total{listener=\"ws\"} 17")) << metrics;
  EXPECT_TRUE(has(metrics, "tiffany_websocket_open{listener=\"ws\"} 0")) << metrics;
  EXPECT_TRUE(has(metrics, "tiffany_websocket_messages_total{listener=\"ws\",direction=\"received\"} 38")) << metrics;
  EXPECT_TRUE(has(metrics, "tiffany_websocket_messages_total{listener=\"ws\",direction=\"sent\"} 352")) << metrics;
  EXPECT_TRUE(has(metrics, "tiffany_websocket_closes_total{listener=\"ws\",reason=\"normal\"} 17")) << metrics;
}

TEST(PubSub, AClientThatStopsReadingIsDroppedAndAReaderStillGetsEverything) {
  ServerProcess server(config(1, R"({"max_pending": 32, "close_timeout_ms": 1000})"));
  const std::string seen = drive({"slow", "--port", std::to_string(server.port_of("ws"))});
  EXPECT_TRUE(has(seen, "\"fast_received\": 400, \"published\": 400")) << seen;
  EXPECT_TRUE(has(seen, "\"slow_ended\": true")) << "the slow client's connection was closed: " << seen;
  // It got what was in flight when it was dropped, far from all 400.
  const auto at = seen.find("\"slow_received\": ");
  ASSERT_NE(at, std::string::npos) << seen;
  EXPECT_LT(std::stoi(seen.substr(at + 17)), 200) << seen;
}

TEST(PubSub, BadCommandsAreAnsweredAndTheClientIsStillServed) {
  ServerProcess server(config(1, "{}"));
  const std::string seen = drive({"errors", "--port", std::to_string(server.port_of("ws"))});
  EXPECT_TRUE(has(seen, R"("not_json": {"error": "expected a JSON object)")) << seen;
  EXPECT_TRUE(has(seen, R"("binary": {"error": "expected a JSON object)")) << seen;
  EXPECT_TRUE(has(seen, R"("empty_channel": {"error": "\"subscribe\" takes a channel name of 1 to 256 bytes"})")) << seen;
  EXPECT_TRUE(has(seen, R"("unknown_verb": {"error": "expected one of)")) << seen;
  EXPECT_TRUE(has(seen, R"("still_serving": {"subscribed": "room"})")) << seen;
}

TEST(PubSub, ABadRedisAddressIsAConfigErrorNamingTheKey) {
  TempDir dir;
  const std::string file = dir.write("bad.json", config(1, R"({"redis": "localhost"})"));
  const RunResult run = run_program(tiffany_binary(), {"--check-config", "--config", file}, 30s);
  EXPECT_NE(run.exit_code, 0);
  EXPECT_TRUE(has(run.err, "$.listeners[0].routes[1].with.redis: expected \"host:port\"")) << run.err;
}

// The chat example plugin (handlers/example_plugins/chat.cpp), on the SDK's pubsub::Channels.
TEST(ChatPlugin, EveryoneInARoomHearsEveryoneInOrderAcrossWorkers) {
  ServerProcess server(config(2, "{}"));
  const std::string port = std::to_string(server.port_of("ws"));
  // Two ports of one process: the clients still spread over its two workers (SO_REUSEPORT).
  const std::string seen = drive({"chat", "--ports", port + "," + port, "--clients", "8"}, kChatDriver);
  EXPECT_TRUE(has(seen, "\"clients\": 8, \"heard\": 320")) << seen;  // 8 listeners x 8 speakers x 5 lines
}

TEST(ChatPlugin, ABadNameIsRefusedWith400AndABinaryMessageClosesWith1003) {
  ServerProcess server(config(1, "{}"));
  const std::string seen = drive({"refusals", "--port", std::to_string(server.port_of("ws"))}, kChatDriver);
  EXPECT_TRUE(has(seen, "\"bad_name_status\": 400")) << seen;
  EXPECT_TRUE(has(seen, "\"binary_close_code\": 1003")) << seen;
}

// A "Redis" that never reads: a listening socket nobody accepts from (the kernel completes the
// connections and buffers what arrives until its buffers fill). It never answers the PING that
// makes a connection ready, so the link never counts it as connected: what was published while
// the first try was under way (at most 8 MiB of the flood) is dropped when that try fails, and
// the failure is logged.
TEST(PubSub, ARedisThatNeverAnswersIsNeverTakenForConnected) {
  const int deaf = ::socket(AF_INET, SOCK_STREAM, 0);
  const int port = bind_loopback(deaf);
  ASSERT_EQ(::listen(deaf, 16), 0);
  ServerProcess server(config(1, R"({"redis": "127.0.0.1:)" + std::to_string(port) + R"("})"));
  // 400 x 64 KB: far more than the socket buffers between us and the deaf listener hold.
  drive({"flood", "--port", std::to_string(server.port_of("ws")), "--messages", "400"});
  const std::string line = "pubsub: cannot reach Redis at 127.0.0.1:" + std::to_string(port) +
                           ": no answer to PING in 5 s; retrying";
  EXPECT_TRUE(eventually([&] { return has(server.err(), line); }, 20s)) << server.err();
  EXPECT_FALSE(has(server.err(), "pubsub: connected to Redis")) << server.err();
  ::close(deaf);
}

// Two Tiffany instances sharing a redis-server on loopback.
class PubSubRedis : public ::testing::Test {
 protected:
  void SetUp() override {
    redis_port_ = unused_port();
    redis_ = spawn_child("redis-server", {"--port", std::to_string(redis_port_), "--bind", "127.0.0.1", "--save", "",
                                          "--appendonly", "no", "--dir", dir_.path()},
                         ChildStreams{"", dir_.path() + "/redis.out", dir_.path() + "/redis.err"});
    ASSERT_GT(redis_, 0);
    // Ready when it answers PING.
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (run_program("redis-cli", {"-p", std::to_string(redis_port_), "ping"}, 5s).out != "PONG\n") {
      ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "redis-server did not start";
      std::this_thread::sleep_for(50ms);
    }
    const std::string with = R"({"redis": "127.0.0.1:)" + std::to_string(redis_port_) + R"("})";
    first_ = std::make_unique<ServerProcess>(config(2, with, with));
    second_ = std::make_unique<ServerProcess>(config(2, with, with));
  }
  void TearDown() override {
    first_.reset();
    second_.reset();
    // The restart test's Redis is a daemon of its own; the first one is our child.
    run_program("redis-cli", {"-p", std::to_string(redis_port_), "shutdown", "nosave"}, 10s);
    ::kill(redis_, SIGKILL);
    ::waitpid(redis_, nullptr, 0);
  }
  std::string ports() { return std::to_string(first_->port_of("ws")) + "," + std::to_string(second_->port_of("ws")); }

  TempDir dir_;
  int redis_port_ = 0;
  pid_t redis_ = -1;
  std::unique_ptr<ServerProcess> first_;
  std::unique_ptr<ServerProcess> second_;
};

TEST_F(PubSubRedis, AMessagePublishedOnOneInstanceReachesTheOthersSubscribers) {
  const std::string seen = drive({"fanout", "--ports", ports(), "--subscribers", "8", "--messages", "10"});
  EXPECT_TRUE(has(seen, "\"subscribers\": 8")) << seen;
}

TEST_F(PubSubRedis, PublishingFailsWhileRedisIsDownAndSubscribersReceiveAgainAfterItRestarts) {
  const std::string seen =
      drive({"restart", "--ports", ports(), "--redis-port", std::to_string(redis_port_), "--redis-dir", dir_.path()});
  EXPECT_TRUE(has(seen, R"("during": {"error": "Redis is unreachable)")) << seen;
  // Each worker logs the loss once and the reconnect once.
  EXPECT_TRUE(has(first_->err(), "pubsub: lost Redis at 127.0.0.1:")) << first_->err();
  EXPECT_TRUE(has(first_->err(), "pubsub: connected to Redis at 127.0.0.1:")) << first_->err();
}

// Issue 19's "done when": a browser-style client chats through two instances sharing a Redis.
TEST_F(PubSubRedis, AChatRoomSpansTwoInstances) {
  const std::string seen = drive({"chat", "--ports", ports(), "--clients", "6"}, kChatDriver);
  EXPECT_TRUE(has(seen, "\"clients\": 6, \"heard\": 180")) << seen;  // 6 x 6 x 5
}

TEST_F(PubSubRedis, WithRedisDownAChatRefusesWhatIsSaidAndClosesNewcomersWith1013) {
  const std::string seen = drive(
      {"redis_down", "--port", std::to_string(first_->port_of("ws")), "--redis-port", std::to_string(redis_port_)},
      kChatDriver);
  EXPECT_TRUE(has(seen, R"("said": {"error": "not delivered; try again", "room": "lobby"})")) << seen;
  EXPECT_TRUE(has(seen, "\"late_close_code\": 1013")) << seen;
}

TEST_F(PubSubRedis, AChatSurvivesRedisRestartingAndItsClientsHearEachOtherAfterwards) {
  const std::string seen = drive({"restart", "--ports", ports(), "--redis-port", std::to_string(redis_port_),
                                  "--redis-dir", dir_.path()},
                                 kChatDriver);
  EXPECT_TRUE(has(seen, R"("during": {"error": "not delivered; try again", "room": "lobby"})")) << seen;
}

// Redis refusing our SUBSCRIBE (an ACL without the channel): logged with Redis's reason, and the
// chat client that cannot join is closed with 1013 instead of waiting unseen.
TEST_F(PubSubRedis, ARedisThatRefusesTheSubscribeIsLoggedAndTheChatClientToldToTryAgain) {
  const RunResult acl = run_program("redis-cli", {"-p", std::to_string(redis_port_), "ACL", "SETUSER", "default",
                                                  "resetchannels", "&elsewhere.*"}, 10s);
  ASSERT_EQ(acl.out, "OK\n") << acl.out << acl.err;
  const std::string seen =
      drive({"refused", "--port", std::to_string(first_->port_of("ws"))}, kChatDriver);
  EXPECT_TRUE(has(seen, "\"close_code\": 1013")) << seen;
  EXPECT_TRUE(has(first_->err(), "it refused a SUBSCRIBE: NOPERM")) << first_->err();
}

}  // namespace
}  // namespace tiffany::testing
