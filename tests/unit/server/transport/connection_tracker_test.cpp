// ConnectionTracker on virtual time: counting, the limit's wait for room,
// peaks, and the drain (idle members shortened, on_drained once at the end).
#include "server/transport/connection_tracker.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include <tiffany/coro/manual_clock.hpp>
#include <tiffany/coro/syscalls.hpp>

namespace tiffany {
namespace {

using namespace std::chrono_literals;

class ConnectionTrackerTest : public ::testing::Test {
 protected:
  std::chrono::milliseconds elapsed() const {
    return std::chrono::duration_cast<std::chrono::milliseconds>(clock_.now() - start_);
  }
  ManualClock clock_;
  Scheduler scheduler_{SchedulerOptions{.clock = &clock_}};
  ManualClock::time_point start_ = clock_.now();
};

TEST_F(ConnectionTrackerTest, ASharedSlotCountsInTheSameLimitsAndOnlyWithinThem) {
  ConnectionTracker tracker(10);
  ListenerLimits listener("h2", 3, nullptr);
  std::optional<ConnectionTracker::Slot> connection;
  connection.emplace(tracker, &listener);
  std::optional<ConnectionTracker::Slot> first = connection->share();
  std::optional<ConnectionTracker::Slot> second = connection->share();
  ASSERT_TRUE(first && second);
  EXPECT_EQ(tracker.size(), 3u);
  EXPECT_EQ(listener.size(), 3u);
  EXPECT_FALSE(connection->share());  // the listener is full
  first.reset();
  EXPECT_EQ(listener.size(), 2u);
  EXPECT_TRUE(connection->share());  // made and let go at once
  EXPECT_EQ(tracker.size(), 2u);
}

TEST_F(ConnectionTrackerTest, SlotsCountOpenConnectionsAndThePeakSinceItWasLastTaken) {
  ConnectionTracker tracker(10);
  std::optional<ConnectionTracker::Slot> a, b, c;
  a.emplace(tracker);
  b.emplace(tracker);
  c.emplace(tracker);
  EXPECT_EQ(tracker.size(), 3u);
  b.reset();
  c.reset();
  EXPECT_EQ(tracker.size(), 1u);
  EXPECT_EQ(tracker.take_peak(), 3u);
  EXPECT_EQ(tracker.peak(), 1u);  // the next period starts at the size now
  ConnectionTracker::Slot moved = std::move(*a);
  a.reset();  // a moved-from slot counts nothing
  EXPECT_EQ(tracker.size(), 1u);
}

TEST_F(ConnectionTrackerTest, AtTheLimitWaitingForRoomEndsWhenAConnectionCloses) {
  ConnectionTracker tracker(2);
  std::vector<std::string> events;
  std::optional<ConnectionTracker::Slot> first(std::in_place, tracker);
  std::optional<ConnectionTracker::Slot> second(std::in_place, tracker);
  auto acceptor = [&]() -> Task<void> {
    co_await tracker.wait_for_room();
    events.push_back("room at " + std::to_string(elapsed().count()) + "ms");
  };
  auto closer = [&]() -> Task<void> {
    co_await Sleep{30ms};
    first.reset();
  };
  (void)scheduler_.spawn(acceptor());
  (void)scheduler_.spawn(closer());
  scheduler_.run();
  EXPECT_EQ(events, std::vector<std::string>{"room at 30ms"});
}

Task<void> sleep_for(std::chrono::milliseconds duration) { co_await Sleep{duration}; }

TEST_F(ConnectionTrackerTest, ADrainShortensIdleMembersToTheGraceLetsBusyOnesFinishAndReportsOnce) {
  ConnectionTracker tracker(10);
  std::vector<std::string> events;
  const auto at = [&](const std::string& what) { events.push_back(what + " at " + std::to_string(elapsed().count()) + "ms"); };
  // A connection waiting `busy_for` on a request, then idle until its
  // deadline (an hour, unless a drain shortens it).
  auto connection = [&](std::string name, std::chrono::milliseconds busy_for) -> Task<void> {
    ConnectionTracker::Slot slot(tracker);
    Deadline deadline = Deadline::after(1h);
    ConnectionTracker::Membership membership(tracker, deadline);
    if (busy_for.count() > 0) {
      (void)co_await deadline.guard(sleep_for(busy_for));
      at(name + " done");
    }
    membership.set_idle(true);
    const Timed<void> idle = co_await deadline.guard(sleep_for(1h));
    at(name + (idle.timed_out() ? " closed" : " idled an hour"));
  };
  auto drainer = [&]() -> Task<void> {
    co_await Sleep{10ms};
    tracker.drain(50ms, [&] { at("drained"); });
  };
  (void)scheduler_.spawn(connection("idle", 0ms));
  (void)scheduler_.spawn(connection("busy", 80ms));
  (void)scheduler_.spawn(drainer());
  scheduler_.run();
  EXPECT_EQ(events, (std::vector<std::string>{"idle closed at 60ms", "busy done at 80ms", "busy closed at 130ms",
                                              "drained at 130ms"}));
}

}  // namespace
}  // namespace tiffany
