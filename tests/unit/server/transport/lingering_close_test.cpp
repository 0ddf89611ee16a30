// lingering_close on virtual time: it ends when the peer closes, falls
// silent, has sent for the whole budget or too many bytes, or a drain begins.
#include "server/transport/lingering_close.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include <tiffany/coro/deadline.hpp>
#include <tiffany/coro/manual_clock.hpp>
#include <tiffany/coro/syscalls.hpp>

#include "server/transport/connection_tracker.hpp"
#include "support/timed_peer_stream.hpp"

namespace tiffany {
namespace {

using namespace std::chrono_literals;
using tiffany::testing::TimedPeerStream;
constexpr auto filler = &TimedPeerStream::filler;

class LingeringCloseTest : public ::testing::Test {
 protected:
  // Lingers on `stream` in a task; returns how long it lingered (virtual time).
  std::chrono::milliseconds linger(TimedPeerStream& stream, ConnectionTracker* tracker = nullptr) {
    auto body = [](TimedPeerStream& s, LingerLimits limits, ConnectionTracker* t) -> Task<void> {
      Deadline deadline = Deadline::unarmed();
      co_await lingering_close(s, deadline, limits, t);
    };
    const auto start = clock_.now();
    auto handle = scheduler_.spawn(body(stream, limits_, tracker));
    scheduler_.run();
    handle.take_result();
    return std::chrono::duration_cast<std::chrono::milliseconds>(clock_.now() - start);
  }

  ManualClock clock_;
  Scheduler scheduler_{SchedulerOptions{.clock = &clock_}};
  LingerLimits limits_{.total = 5000ms, .read = 2000ms, .bytes = 1024 * 1024};
};

TEST_F(LingeringCloseTest, EndsWhenThePeerCloses) {
  TimedPeerStream stream({filler(100ms, 1000), filler(100ms, 1000), {100ms, ""}});
  EXPECT_EQ(linger(stream), 300ms);
  EXPECT_EQ(stream.reads, 3);
}

TEST_F(LingeringCloseTest, EndsWhenThePeerFallsSilentForAReadTimeout) {
  TimedPeerStream stream({filler(100ms, 1000), filler(1500ms, 1000)});
  EXPECT_EQ(linger(stream), 100ms + 1500ms + 2000ms);
}

TEST_F(LingeringCloseTest, EndsAtTheTotalHoweverThePeerKeepsSending) {
  std::vector<TimedPeerStream::Arrival> forever(100, filler(1000ms, 1));
  TimedPeerStream stream(std::move(forever));
  EXPECT_EQ(linger(stream), 5000ms);
}

TEST_F(LingeringCloseTest, EndsOnceMoreThanTheByteCapIsDropped) {
  limits_.bytes = 40'000;
  std::vector<TimedPeerStream::Arrival> fast(100, filler(10ms, 16'000));
  TimedPeerStream stream(std::move(fast));
  EXPECT_EQ(linger(stream), 30ms);  // 48,000 bytes after the third read
  EXPECT_EQ(stream.reads, 3);
}

TEST_F(LingeringCloseTest, AZeroTotalClosesAtOnce) {
  limits_.total = 0ms;
  TimedPeerStream stream({filler(100ms, 1000)});
  EXPECT_EQ(linger(stream), 0ms);
  EXPECT_EQ(stream.reads, 0);
}

TEST_F(LingeringCloseTest, ADrainCutsItToTheIdleGrace) {
  ConnectionTracker tracker(10);
  auto drain_soon = [](ConnectionTracker& t) -> Task<void> {
    co_await Sleep{300ms};
    t.drain(100ms, [] {});
  };
  auto drainer = scheduler_.spawn(drain_soon(tracker));
  TimedPeerStream silent({});
  EXPECT_EQ(linger(silent, &tracker), 400ms);
  drainer.take_result();
  // Lingering that starts during a drain gets the grace only.
  TimedPeerStream sending(std::vector<TimedPeerStream::Arrival>(100, filler(30ms, 1)));
  EXPECT_EQ(linger(sending, &tracker), 100ms);
}

}  // namespace
}  // namespace tiffany
