// IdlePark on every backend: bytes wake a parked connection into a task,
// idling too long closes it (a timeout), and a drain closes it (not one).
#include "server/transport/idle_park.hpp"

#include <poll.h>
#include <sys/socket.h>

#include <chrono>
#include <string>

#include <tiffany/coro/syscalls.hpp>
#include <tiffany/handlers/server_stats.hpp>

#include "server/transport/connection_tracker.hpp"
#include "support/socket_pair.hpp"
#include "unit/reactor/reactor_fixture.hpp"

namespace tiffany {
namespace {

using namespace std::chrono_literals;
using testing::SocketPair;

using IdleParkTest = ReactorTest;
INSTANTIATE_TEST_SUITE_P(Backends, IdleParkTest, all_backends(), backend_name);

// Whether `fd`'s peer has closed (EOF), waiting up to a second.
bool closed_by_peer(int fd) {
  pollfd ready{fd, POLLIN, 0};
  if (::poll(&ready, 1, 1000) != 1) return false;
  char byte;
  return ::recv(fd, &byte, 1, MSG_DONTWAIT) == 0;
}

TEST_P(IdleParkTest, BytesWakeTheConnectionIntoATaskThatMayParkItAgain) {
  SocketPair pair;
  ConnectionTracker tracker(10);
  std::string served;
  IdlePark* park_of_test = nullptr;
  IdlePark park(1h, &tracker, [&](ParkedConnection connection, ReadLease first, Scheduler::Clock::time_point) -> Task<void> {
    served += std::string(first.bytes()) + ";";
    park_of_test->park(std::move(connection));  // keep-alive: wait for more
    co_return;
  });
  park_of_test = &park;
  auto body = [&]() -> Task<void> {
    park.park(ParkedConnection{std::move(pair.b), "peer", ConnectionTracker::Slot(tracker), nullptr, nullptr, false});
    EXPECT_EQ(park.size(), 1u);
    ::send(pair.a.get(), "one", 3, MSG_NOSIGNAL);
    co_await Sleep{50ms};
    ::send(pair.a.get(), "two", 3, MSG_NOSIGNAL);
    co_await Sleep{50ms};
    EXPECT_EQ(park.size(), 1u);  // parked again after each burst
    park.close_all();
    Scheduler::current().stop();  // the park's reaper sleeps for the hour of its timeout
  };
  auto handle = scheduler().spawn(body());
  scheduler().run();
  handle.take_result();
  EXPECT_EQ(served, "one;two;");
  EXPECT_TRUE(closed_by_peer(pair.a.get()));
  EXPECT_EQ(tracker.size(), 0u);
}

TEST_P(IdleParkTest, AConnectionIdleTooLongIsClosedAndCountedAsAnIdleTimeout) {
  SocketPair pair;
  ConnectionTracker tracker(10);
  IdlePark park(30ms, &tracker, [](ParkedConnection, ReadLease, Scheduler::Clock::time_point) -> Task<void> {
    ADD_FAILURE() << "nothing was sent";
    co_return;
  });
  const StatTotals before = stat_totals();
  auto body = [&]() -> Task<void> {
    park.park(ParkedConnection{std::move(pair.b), "peer", ConnectionTracker::Slot(tracker), nullptr, nullptr, false});
    co_await Sleep{150ms};
    Scheduler::current().stop();
  };
  auto handle = scheduler().spawn(body());
  scheduler().run();
  handle.take_result();
  EXPECT_TRUE(closed_by_peer(pair.a.get()));
  EXPECT_EQ(park.size(), 0u);
  EXPECT_EQ(stat_totals()[Stat::timeouts_idle] - before[Stat::timeouts_idle], 1);
  EXPECT_EQ(stat_totals()[Stat::closed_by_drain] - before[Stat::closed_by_drain], 0);
}

TEST_P(IdleParkTest, ADrainClosesIdleConnectionsAfterItsGraceAndCountsThemAsDrainedNotTimedOut) {
  SocketPair idle;
  SocketPair late;
  ConnectionTracker tracker(10);
  std::string served;
  IdlePark park(1h, &tracker, [&](ParkedConnection, ReadLease first, Scheduler::Clock::time_point) -> Task<void> {
    served += std::string(first.bytes());  // then the connection closes
    co_return;
  });
  const StatTotals before = stat_totals();
  bool drained = false;
  auto body = [&]() -> Task<void> {
    park.park(ParkedConnection{std::move(idle.b), "idle", ConnectionTracker::Slot(tracker), nullptr, nullptr, false});
    park.park(ParkedConnection{std::move(late.b), "late", ConnectionTracker::Slot(tracker), nullptr, nullptr, false});
    tracker.drain(100ms, [&] { drained = true; });
    co_await Sleep{20ms};
    ::send(late.a.get(), "GET", 3, MSG_NOSIGNAL);  // a request on its way during the grace is served
    co_await Sleep{200ms};
    Scheduler::current().stop();  // the reaper and the drain's grace may still sleep
  };
  auto handle = scheduler().spawn(body());
  scheduler().run();
  handle.take_result();
  EXPECT_EQ(served, "GET");
  EXPECT_TRUE(closed_by_peer(idle.a.get()));
  EXPECT_TRUE(drained);
  EXPECT_EQ(stat_totals()[Stat::closed_by_drain] - before[Stat::closed_by_drain], 1);
  EXPECT_EQ(stat_totals()[Stat::timeouts_idle] - before[Stat::timeouts_idle], 0);
}

}  // namespace
}  // namespace tiffany
