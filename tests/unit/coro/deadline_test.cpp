// Deadline: cancel a task at a time, re-armed cheaply, told apart from other cancels.
#include "coro/deadline.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "coro/manual_clock.hpp"
#include "coro/syscalls.hpp"

namespace tiffany {
namespace {

using namespace std::chrono_literals;

class DeadlineTest : public ::testing::Test {
 protected:
  std::chrono::milliseconds elapsed() const {
    return std::chrono::duration_cast<std::chrono::milliseconds>(clock_.now() - start_);
  }
  ManualClock clock_;
  Scheduler scheduler_{SchedulerOptions{.clock = &clock_}};
  ManualClock::time_point start_ = clock_.now();
};

TEST_F(DeadlineTest, CancelsTheTaskWhenItExpires) {
  auto body = [&]() -> Task<std::string> {
    Deadline deadline = Deadline::after(10ms);
    bool canceled = false;
    try {
      co_await Sleep{1h};
    } catch (const TaskCanceled&) {
      canceled = true;
    }
    if (!canceled) co_return "slept";
    co_await Sleep{1ms};  // a task may still await after catching: e.g. to send a 408
    co_return deadline.expired() ? "expired at " + std::to_string(elapsed().count()) + "ms" : "other cancel";
  };
  auto handle = scheduler_.spawn(body());
  scheduler_.run();
  EXPECT_EQ(handle.take_result(), "expired at 11ms");
}

TEST_F(DeadlineTest, DoesNothingOnceDisarmedOrGone) {
  auto body = [&]() -> Task<std::string> {
    {
      Deadline gone = Deadline::after(5ms);
    }
    Deadline disarmed = Deadline::after(5ms);
    disarmed.disarm();
    co_await Sleep{20ms};
    co_return "finished at " + std::to_string(elapsed().count()) + "ms";
  };
  auto handle = scheduler_.spawn(body());
  scheduler_.run();
  EXPECT_EQ(handle.take_result(), "finished at 20ms");
}

TEST_F(DeadlineTest, RearmingLaterMovesTheExpiry) {
  auto body = [&]() -> Task<std::string> {
    Deadline deadline = Deadline::after(10ms);
    co_await Sleep{8ms};
    deadline.rearm_after(10ms);  // like a keep-alive connection after each request: now 18 ms
    co_await Sleep{8ms};         // 16 ms: still fine
    try {
      co_await Sleep{1h};
    } catch (const TaskCanceled&) {
      co_return "expired at " + std::to_string(elapsed().count()) + "ms";
    }
    co_return "slept";
  };
  auto handle = scheduler_.spawn(body());
  scheduler_.run();
  EXPECT_EQ(handle.take_result(), "expired at 18ms");
}

TEST_F(DeadlineTest, RearmingEarlierTakesEffect) {
  auto body = [&]() -> Task<std::string> {
    Deadline deadline = Deadline::after(1h);
    deadline.rearm_after(3ms);
    try {
      co_await Sleep{1h};
    } catch (const TaskCanceled&) {
      co_return "expired at " + std::to_string(elapsed().count()) + "ms";
    }
    co_return "slept";
  };
  auto handle = scheduler_.spawn(body());
  scheduler_.run();
  EXPECT_EQ(handle.take_result(), "expired at 3ms");
}

TEST_F(DeadlineTest, AnOrdinaryCancelIsNotAnExpiry) {
  auto body = [&]() -> Task<bool> {
    Deadline deadline = Deadline::after(1h);
    try {
      co_await Sleep{1h};
    } catch (const TaskCanceled&) {
      co_return deadline.expired();
    }
    co_return true;
  };
  auto handle = scheduler_.spawn(body());
  scheduler_.run_until_idle();
  handle.cancel();
  scheduler_.run();
  EXPECT_FALSE(handle.take_result());
}

TEST_F(DeadlineTest, ManyRearmsKeepTheTimerHeapSmall) {
  auto body = [&]() -> Task<int> {
    Deadline deadline = Deadline::after(10ms);
    for (int i = 0; i < 10'000; ++i) {
      deadline.rearm_after(10ms);
      co_await Yield{};
    }
    co_return 0;
  };
  auto handle = scheduler_.spawn(body());
  scheduler_.run();
  EXPECT_EQ(handle.take_result(), 0);
  EXPECT_EQ(scheduler_.stats().canceled, 0u);
}

}  // namespace
}  // namespace tiffany
