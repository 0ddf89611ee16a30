// SocketWatchdog: a deadline shuts the socket down so a pending Recv ends;
// disarmed guards leave it alone; earlier deadlines armed later still fire on
// time; a patrol cut short with its scheduler does not stop the next one.
#include "server/socket_watchdog.hpp"

#include <sys/socket.h>

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <system_error>

#include "coro/syscalls.hpp"
#include "reactor/recv.hpp"
#include "reactor/unique_fd.hpp"
#include "unit/reactor/uring_fixture.hpp"
#include "support/socket_pair.hpp"

namespace tiffany {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

using testing::SocketPair;

struct Watched {
  IoResult received{-1};
  bool fired = false;
  Clock::duration waited{};
};

// Waits for input on `fd` under a deadline of `timeout`.
Task<void> receive_with_deadline(int fd, Clock::duration timeout, Watched& out) {
  const auto start = Clock::now();
  SocketWatchdog::Guard deadline(fd, timeout);
  char byte = 0;
  out.received = co_await Recv{fd, &byte, 1};
  out.fired = deadline.fired();
  out.waited = Clock::now() - start;
}

using SocketWatchdogTest = UringTest;

TEST_F(SocketWatchdogTest, ShutsTheSocketDownWhenTheDeadlinePasses) {
  SocketPair pair;
  Watched watched;
  (void)scheduler().spawn(receive_with_deadline(pair.a.get(), 30ms, watched));
  scheduler().run();
  EXPECT_TRUE(watched.received.ok());
  EXPECT_EQ(watched.received.bytes(), 0u);  // shutdown reads as EOF
  EXPECT_TRUE(watched.fired);
  EXPECT_GE(watched.waited, 30ms);
  EXPECT_LT(watched.waited, 2s);
}

TEST_F(SocketWatchdogTest, ADisarmedGuardLeavesTheSocketAlone) {
  SocketPair pair;
  bool fired = true;
  IoResult received{-1};
  auto task = [](int fd, bool& fired_out, IoResult& received_out) -> Task<void> {
    SocketWatchdog::Guard deadline(fd, 20ms);
    deadline.disarm();
    co_await Sleep{60ms};
    char byte = 0;
    received_out = co_await Recv{fd, &byte, 1};
    fired_out = deadline.fired();
  };
  (void)scheduler().spawn(task(pair.a.get(), fired, received));
  ASSERT_EQ(::send(pair.b.get(), "x", 1, 0), 1);
  scheduler().run();
  EXPECT_FALSE(fired);
  EXPECT_EQ(received.bytes(), 1u);
}

TEST_F(SocketWatchdogTest, AnEarlierDeadlineArmedLaterStillFiresOnTime) {
  SocketPair late_pair;
  SocketPair early_pair;
  Watched late;
  Watched early;
  auto arm_late_then_early = [&]() -> Task<void> {
    (void)co_await Spawn{receive_with_deadline(late_pair.a.get(), 400ms, late)};
    co_await Yield{};  // the late guard is armed and its patrol asleep
    co_await Yield{};
    (void)co_await Spawn{receive_with_deadline(early_pair.a.get(), 20ms, early)};
  };
  (void)scheduler().spawn(arm_late_then_early());
  scheduler().run();
  EXPECT_TRUE(early.fired);
  EXPECT_LT(early.waited, 300ms) << "the early deadline waited for the late one";
  EXPECT_TRUE(late.fired);
  EXPECT_GE(late.waited, 400ms);
}

TEST(SocketWatchdog, APatrolCutShortWithItsSchedulerDoesNotStopTheNextOne) {
  for (int round = 0; round < 2; ++round) {
    std::unique_ptr<UringReactor> reactor;
    try {
      reactor = std::make_unique<UringReactor>(64);
    } catch (const std::system_error& e) {
      GTEST_SKIP() << "io_uring unavailable here: " << e.what();
    }
    SocketPair pair;
    Watched watched;
    {
      Scheduler scheduler(reactor.get());
      if (round == 0) {
        // A long deadline whose patrol is still asleep when the scheduler goes.
        (void)scheduler.spawn(receive_with_deadline(pair.a.get(), 10s, watched));
        auto stop_soon = []() -> Task<void> {
          co_await Sleep{20ms};
          Scheduler::current().stop();
        };
        (void)scheduler.spawn(stop_soon());
        scheduler.run();
        EXPECT_FALSE(watched.fired);
      } else {
        (void)scheduler.spawn(receive_with_deadline(pair.a.get(), 20ms, watched));
        scheduler.run();
        EXPECT_TRUE(watched.fired);
      }
    }
  }
}

}  // namespace
}  // namespace tiffany
