// Cancellation (PYOS KillTask) in every state a task can be in.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include <tiffany/coro/kernel.hpp>
#include <tiffany/coro/manual_clock.hpp>
#include <tiffany/coro/promise.hpp>
#include <tiffany/coro/syscalls.hpp>

namespace tiffany {
namespace {

using namespace std::chrono_literals;
using Log = std::vector<std::string>;

// Appends to the log when destroyed: proves unwinding ran destructors.
struct Sentinel {
  Log& log;
  std::string name;
  ~Sentinel() { log.push_back(name + " destroyed"); }
};

class CancelTest : public ::testing::Test {
 protected:
  ManualClock clock_;
  Scheduler scheduler_{SchedulerOptions{.clock = &clock_}};
  Log log_;
};

TEST_F(CancelTest, AReadyTaskThatNeverRanEndsWithoutRunning) {
  auto body = [](Log& log) -> Task<void> {
    log.push_back("ran");
    co_return;
  };
  auto handle = scheduler_.spawn(body(log_));
  handle.cancel();
  EXPECT_EQ(scheduler_.state(handle.tid()), TaskState::canceled);
  scheduler_.run();
  EXPECT_TRUE(log_.empty());
  EXPECT_THROW(handle.take_result(), TaskCanceled);
  EXPECT_EQ(scheduler_.stats().canceled, 1u);
}

TEST_F(CancelTest, AYieldedTaskSeesTaskCanceledAtItsYieldAndUnwinds) {
  auto body = [](Log& log) -> Task<void> {
    Sentinel sentinel{log, "local"};
    log.push_back("before yield");
    try {
      co_await Yield{};
    } catch (const TaskCanceled&) {
      log.push_back("caught");
      throw;
    }
    log.push_back("after yield (must not happen)");
  };
  auto handle = scheduler_.spawn(body(log_));
  scheduler_.step();  // runs to the Yield
  handle.cancel();
  scheduler_.run();
  EXPECT_EQ(log_, (Log{"before yield", "caught", "local destroyed"}));
  EXPECT_THROW(handle.take_result(), TaskCanceled);
}

TEST_F(CancelTest, ASleepingTaskWakesAtOnce) {
  auto body = [](Log& log) -> Task<void> {
    co_await Sleep{1h};
    log.push_back("slept (must not happen)");
  };
  auto handle = scheduler_.spawn(body(log_));
  scheduler_.run_until_idle();
  const auto before = clock_.now();
  handle.cancel();
  scheduler_.run();
  EXPECT_EQ(clock_.now(), before);  // no virtual time passed
  EXPECT_EQ(scheduler_.state(handle.tid()), TaskState::canceled);
  EXPECT_TRUE(log_.empty());
}

TEST_F(CancelTest, AStaleTimerDoesNotWakeTheTaskFromItsNextWait) {
  auto body = [](Log& log) -> Task<void> {
    try {
      co_await Sleep{10ms};
    } catch (const TaskCanceled&) {
      log.push_back("canceled");
    }
    co_await Sleep{50ms};  // the 10 ms timer of the first sleep must not end this one
    log.push_back("second sleep done");
  };
  const auto start = clock_.now();
  auto handle = scheduler_.spawn(body(log_));
  scheduler_.run_until_idle();
  handle.cancel();
  scheduler_.run();
  EXPECT_EQ(log_, (Log{"canceled", "second sleep done"}));
  EXPECT_EQ(clock_.now() - start, 50ms);
}

TEST_F(CancelTest, ATaskBlockedOnJoinIsCanceledAndTheChildRunsOn) {
  auto child = [](Log& log) -> Task<int> {
    co_await Sleep{20ms};
    log.push_back("child finished");
    co_return 7;
  };
  auto parent = [&](Log& log) -> Task<void> {
    auto handle = co_await Spawn{child(log)};
    try {
      (void)co_await Join{std::move(handle)};
    } catch (const TaskCanceled&) {
      log.push_back("parent canceled");
      throw;
    }
  };
  auto handle = scheduler_.spawn(parent(log_));
  scheduler_.run_until_idle();
  handle.cancel();
  scheduler_.run();
  EXPECT_EQ(log_, (Log{"parent canceled", "child finished"}));
}

TEST_F(CancelTest, JoinersOfACanceledTaskGetTaskCanceled) {
  auto sleeper = []() -> Task<int> {
    co_await Sleep{1h};
    co_return 1;
  };
  auto parent = [&](Log& log) -> Task<void> {
    auto child = co_await Spawn{sleeper()};
    const TaskId id = child.tid();
    co_await Yield{};
    (void)co_await Cancel{id};
    try {
      (void)co_await Join{std::move(child)};
    } catch (const TaskCanceled&) {
      log.push_back("join saw TaskCanceled");
    }
  };
  auto handle = scheduler_.spawn(parent(log_));
  scheduler_.run();
  EXPECT_EQ(log_, Log{"join saw TaskCanceled"});
  handle.take_result();  // the parent itself completed normally
}

TEST_F(CancelTest, ARunningTaskIsCanceledAtItsNextSuspension) {
  auto body = [](Log& log, Scheduler& scheduler) -> Task<void> {
    detail::Kernel(scheduler).cancel(*detail::Kernel(scheduler).current_task());  // e.g. canceled by code it called
    log.push_back("still running");
    co_await Yield{};
    log.push_back("after suspension (must not happen)");
  };
  auto handle = scheduler_.spawn(body(log_, scheduler_));
  scheduler_.run();
  EXPECT_EQ(log_, Log{"still running"});
  EXPECT_EQ(scheduler_.state(handle.tid()), TaskState::canceled);
}

TEST_F(CancelTest, ATaskMayCatchTheCancellationAndFinishNormally) {
  auto body = [](Log& log) -> Task<int> {
    try {
      co_await Sleep{1h};
    } catch (const TaskCanceled&) {
      log.push_back("cleanup");
    }
    co_await Sleep{1ms};  // delivered once: later waits work
    co_return 5;
  };
  auto handle = scheduler_.spawn(body(log_));
  scheduler_.run_until_idle();
  handle.cancel();
  scheduler_.run();
  EXPECT_EQ(handle.take_result(), 5);
  EXPECT_EQ(log_, Log{"cleanup"});
}

TEST_F(CancelTest, CancelingAFinishedTaskDoesNothing) {
  auto body = []() -> Task<int> { co_return 3; };
  auto handle = scheduler_.spawn(body());
  scheduler_.run();
  handle.cancel();
  EXPECT_EQ(scheduler_.state(handle.tid()), TaskState::completed);
  EXPECT_EQ(handle.take_result(), 3);
  EXPECT_FALSE(scheduler_.cancel(TaskId{12345}));  // unknown: a no-op too
}

TEST_F(CancelTest, AWaiterOnAFutureIsCanceled) {
  Promise<int> promise;
  auto waiter = [](Future<int> future, Log& log) -> Task<void> {
    try {
      (void)co_await std::move(future);
    } catch (const TaskCanceled&) {
      log.push_back("future wait canceled");
      throw;
    }
  };
  auto handle = scheduler_.spawn(waiter(promise.future(), log_));
  scheduler_.run_until_idle();
  handle.cancel();
  scheduler_.run();
  promise.set_value(1);  // too late, and harmless
  EXPECT_EQ(log_, Log{"future wait canceled"});
}

}  // namespace
}  // namespace tiffany
