// serve_stream on virtual time: each burst is served in order; the loop ends on
// EOF (finishing our side), when the protocol closes, on a read error, when idle
// past the timeout (counted as an idle timeout), on a drain, or when canceled.
#include "server/transport/serve_stream.hpp"

#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>
#include <algorithm>
#include <string>
#include <vector>

#include <tiffany/coro/manual_clock.hpp>
#include <tiffany/coro/syscalls.hpp>
#include <tiffany/coro/task_canceled.hpp>
#include <tiffany/handlers/server_stats.hpp>

#include "server/transport/connection_tracker.hpp"
#include "support/timed_peer_stream.hpp"

namespace tiffany {
namespace {

using namespace std::chrono_literals;
using tiffany::testing::TimedPeerStream;

// Echoes each burst back and records it; keeps the connection open while `keep_open`.
class BurstEcho final : public StreamProtocol {
 public:
  Task<AfterBurst> serve(ByteStream& stream, ConnectionContext& context, ReadLease first) override {
    bursts.emplace_back(first.bytes());
    peer = context.peer;
    const IoResult sent = co_await stream.write(first.data(), first.size());
    co_return sent.ok() && keep_open ? AfterBurst::idle : AfterBurst::close;
  }
  std::chrono::milliseconds idle_timeout() const noexcept override { return 5000ms; }
  const char* name() const noexcept override { return "burst echo"; }

  std::vector<std::string> bursts;
  std::string peer;
  bool keep_open = true;
};

class ServeStreamTest : public ::testing::Test {
 protected:
  // Serves `stream` in a task until it ends; returns how long that took (virtual time).
  std::chrono::milliseconds serve(TimedPeerStream& stream, ConnectionTracker* tracker = nullptr) {
    const auto start = clock_.now();
    auto handle = scheduler_.spawn(serve_stream(protocol_, stream, "192.0.2.1:4000", tracker));
    scheduler_.run();
    handle.take_result();
    return std::chrono::duration_cast<std::chrono::milliseconds>(clock_.now() - start);
  }
  static std::int64_t idle_timeouts() { return stat_totals()[Stat::timeouts_idle]; }

  ManualClock clock_;
  Scheduler scheduler_{SchedulerOptions{.clock = &clock_}};
  BurstEcho protocol_;
};

TEST_F(ServeStreamTest, ServesEachBurstInOrderThenEndsOnEofAndFinishesItsSide) {
  TimedPeerStream stream({{10ms, "ab"}, {20ms, "cd"}, {30ms, ""}});
  const std::int64_t before = idle_timeouts();
  EXPECT_EQ(serve(stream), 60ms);
  EXPECT_EQ(protocol_.bursts, (std::vector<std::string>{"ab", "cd"}));
  EXPECT_EQ(protocol_.peer, "192.0.2.1:4000");
  EXPECT_EQ(stream.written, "abcd");
  EXPECT_TRUE(stream.finished);
  EXPECT_EQ(idle_timeouts() - before, 0);
}

TEST_F(ServeStreamTest, EndsWhenTheProtocolAsksToClose) {
  protocol_.keep_open = false;
  TimedPeerStream stream({{10ms, "ab"}, {10ms, "cd"}});
  EXPECT_EQ(serve(stream), 10ms);
  EXPECT_EQ(protocol_.bursts, (std::vector<std::string>{"ab"}));
  EXPECT_FALSE(stream.finished);  // the protocol closes the way it chose; no EOF to answer
}

TEST_F(ServeStreamTest, EndsOnAReadErrorWithoutServingOrFinishing) {
  TimedPeerStream stream({{10ms, "", -ECONNRESET}});
  const std::int64_t before = idle_timeouts();
  EXPECT_EQ(serve(stream), 10ms);
  EXPECT_TRUE(protocol_.bursts.empty());
  EXPECT_FALSE(stream.finished);
  EXPECT_EQ(idle_timeouts() - before, 0);
}

TEST_F(ServeStreamTest, IdlePastTheTimeoutEndsItAsOneIdleTimeout) {
  TimedPeerStream stream({});
  const std::int64_t before = idle_timeouts();
  EXPECT_EQ(serve(stream), 5000ms);  // returns normally: a timeout is a value, not an exception
  EXPECT_EQ(idle_timeouts() - before, 1);
  EXPECT_FALSE(stream.finished);
}

TEST_F(ServeStreamTest, TheIdleTimeoutStartsAgainAfterEachBurst) {
  TimedPeerStream stream({{4000ms, "a"}, {4000ms, "b"}});
  const std::int64_t before = idle_timeouts();
  EXPECT_EQ(serve(stream), 13000ms);  // 4 s + 4 s of waits under 5 s each, then 5 s of silence
  EXPECT_EQ(protocol_.bursts, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(idle_timeouts() - before, 1);
}

TEST_F(ServeStreamTest, CancelingItEndsTheTaskWithoutCountingATimeout) {
  TimedPeerStream stream({});
  const std::int64_t before = idle_timeouts();
  auto handle = scheduler_.spawn(serve_stream(protocol_, stream, "192.0.2.1:4000", nullptr));
  scheduler_.advance(1000ms);  // waiting idle
  handle.cancel();
  scheduler_.run();
  EXPECT_THROW(handle.take_result(), TaskCanceled);
  EXPECT_EQ(idle_timeouts() - before, 0);
  EXPECT_FALSE(stream.finished);
}

TEST_F(ServeStreamTest, ADrainClosesAnIdleConnectionAfterTheGrace) {
  ConnectionTracker tracker(10);
  TimedPeerStream stream({{100ms, "a"}});
  auto drain = [](ConnectionTracker& t) -> Task<void> {
    co_await Sleep{1000ms};  // the connection has served "a" and waits idle
    t.drain(200ms, [] {});
  };
  auto drainer = scheduler_.spawn(drain(tracker));
  EXPECT_EQ(serve(stream, &tracker), 1200ms);
  drainer.take_result();
  EXPECT_EQ(protocol_.bursts, (std::vector<std::string>{"a"}));
}

}  // namespace
}  // namespace tiffany
