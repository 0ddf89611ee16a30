// Scheduler: FIFO order, the PYOS system calls, task states, failure handling.
#include <tiffany/coro/kernel.hpp>
#include <tiffany/coro/scheduler.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <tiffany/coro/syscalls.hpp>

namespace tiffany {
namespace {

using namespace std::chrono_literals;
using Log = std::vector<std::string>;

Task<void> yield_three_times(std::string name, Log& log) {
  for (int i = 0; i < 3; ++i) {
    log.push_back(name + std::to_string(i));
    co_await Yield{};
  }
}

TEST(Scheduler, YieldingTasksRunRoundRobinInSpawnOrder) {
  Log log;
  Scheduler scheduler;
  (void)scheduler.spawn(yield_three_times("a", log));
  (void)scheduler.spawn(yield_three_times("b", log));
  (void)scheduler.spawn(yield_three_times("c", log));
  scheduler.run();
  EXPECT_EQ(log, (Log{"a0", "b0", "c0", "a1", "b1", "c1", "a2", "b2", "c2"}));
  EXPECT_EQ(scheduler.task_count(), 0u);
}

Task<void> record(std::string name, Log& log) {
  log.push_back(name);
  co_return;
}

TEST(Scheduler, SpawnDoesNotSuspendAndQueuesTheChildLast) {
  Log log;
  Scheduler scheduler;
  auto parent = [](Log& out) -> Task<void> {
    out.push_back("parent starts");
    (void)co_await Spawn{record("child", out)};
    out.push_back("parent continues");
    co_await Yield{};
    out.push_back("parent resumes");
  };
  (void)scheduler.spawn(parent(log));
  (void)scheduler.spawn(record("sibling", log));
  scheduler.run();
  EXPECT_EQ(log, (Log{"parent starts", "parent continues", "sibling", "child", "parent resumes"}));
}

Task<int> value_after_yield(int value) {
  co_await Yield{};
  co_return value;
}

Task<int> fail_after_yield() {
  co_await Yield{};
  throw std::invalid_argument("child failed");
}

TEST(Scheduler, JoinReturnsTheChildsValue) {
  Scheduler scheduler;
  auto parent = []() -> Task<int> {
    auto child = co_await Spawn{value_after_yield(5)};
    co_return 10 * co_await Join{std::move(child)};
  };
  auto handle = scheduler.spawn(parent());
  scheduler.run();
  EXPECT_EQ(handle.take_result(), 50);
}

TEST(Scheduler, JoinRethrowsTheChildsException) {
  Scheduler scheduler;
  scheduler.set_failure_logger([](TaskId, const std::exception_ptr&) {});
  auto parent = []() -> Task<std::string> {
    auto child = co_await Spawn{fail_after_yield()};
    try {
      co_await Join{std::move(child)};
    } catch (const std::invalid_argument& e) {
      co_return e.what();
    }
    co_return "joined without an exception";
  };
  auto handle = scheduler.spawn(parent());
  scheduler.run();
  EXPECT_EQ(handle.take_result(), "child failed");
}

TEST(Scheduler, JoinOnAFinishedChildReturnsWithoutSuspending) {
  Scheduler scheduler;
  auto parent = []() -> Task<int> {
    auto child = co_await Spawn{value_after_yield(3)};
    co_await Yield{};
    co_await Yield{};  // the child has finished by now
    EXPECT_TRUE(child.finished());
    co_return co_await Join{std::move(child)};
  };
  auto handle = scheduler.spawn(parent());
  scheduler.run();
  EXPECT_EQ(handle.take_result(), 3);
}

TEST(Scheduler, GetTidGivesEveryTaskADistinctId) {
  Scheduler scheduler;
  std::vector<TaskId> ids;
  auto report = [](std::vector<TaskId>& out) -> Task<void> { out.push_back(co_await GetTid{}); };
  std::vector<TaskId> spawned;
  for (int i = 0; i < 100; ++i) spawned.push_back(scheduler.spawn(report(ids)).tid());
  scheduler.run();
  ASSERT_EQ(ids.size(), 100u);
  EXPECT_EQ(std::set<TaskId>(ids.begin(), ids.end()).size(), 100u);
  EXPECT_EQ(ids, spawned);  // GetTid agrees with the id Spawn handed out
}

TEST(Scheduler, AFailedTaskIsLoggedWithItsTidAndTheOthersKeepRunning) {
  Scheduler scheduler;
  std::vector<TaskId> failed;
  scheduler.set_failure_logger([&](TaskId id, const std::exception_ptr&) { failed.push_back(id); });
  Log log;
  const TaskId bad = scheduler.spawn(fail_after_yield()).tid();
  (void)scheduler.spawn(yield_three_times("ok", log));
  scheduler.run();
  EXPECT_EQ(failed, std::vector<TaskId>{bad});
  EXPECT_EQ(log, (Log{"ok0", "ok1", "ok2"}));
}

TEST(Scheduler, StatesFollowTheTaskThroughItsLife) {
  Scheduler scheduler;
  std::vector<TaskState> seen_by_parent;
  auto child_task = []() -> Task<int> {
    co_await Sleep{1ms};
    co_return 1;
  };
  auto parent = [&]() -> Task<void> {
    auto child = co_await Spawn{child_task()};
    seen_by_parent.push_back(*scheduler.state(child.tid()));  // queued, not yet run
    co_await Yield{};
    seen_by_parent.push_back(*scheduler.state(child.tid()));  // sleeping
    const TaskId me = co_await GetTid{};
    seen_by_parent.push_back(*scheduler.state(me));
    co_await Join{std::move(child)};
  };
  auto handle = scheduler.spawn(parent());
  scheduler.run();
  EXPECT_EQ(seen_by_parent, (std::vector{TaskState::ready, TaskState::blocked, TaskState::running}));
  EXPECT_EQ(scheduler.state(handle.tid()), TaskState::completed);  // kept while the handle lives
  handle.reset();
  EXPECT_EQ(scheduler.task_count(), 0u);
}

TEST(Scheduler, DetachedTasksLeaveTheTableWhenTheyFinish) {
  Scheduler scheduler;
  Log log;
  const TaskId id = scheduler.spawn(yield_three_times("d", log)).tid();
  EXPECT_EQ(scheduler.state(id), TaskState::ready);
  scheduler.run();
  EXPECT_EQ(scheduler.state(id), std::nullopt);
}

TEST(Scheduler, SleepsWakeInDeadlineOrder) {
  Scheduler scheduler;
  Log log;
  auto sleeper = [](std::string name, std::chrono::milliseconds d, Log& out) -> Task<void> {
    co_await Sleep{d};
    out.push_back(name);
  };
  const auto start = Scheduler::Clock::now();
  (void)scheduler.spawn(sleeper("30ms", 30ms, log));
  (void)scheduler.spawn(sleeper("10ms", 10ms, log));
  (void)scheduler.spawn(sleeper("20ms", 20ms, log));
  (void)scheduler.spawn(sleeper("10ms again", 10ms, log));
  scheduler.run();
  EXPECT_EQ(log, (Log{"10ms", "10ms again", "20ms", "30ms"}));
  EXPECT_GE(Scheduler::Clock::now() - start, 30ms);
}

TEST(Scheduler, StopMakesRunReturnWithTasksStillAlive) {
  Scheduler scheduler;
  auto forever = []() -> Task<void> {
    for (;;) co_await Yield{};
  };
  auto stopper = [](Scheduler& s) -> Task<void> {
    for (int i = 0; i < 10; ++i) co_await Yield{};
    s.stop();
  };
  const TaskId looping = scheduler.spawn(forever()).tid();
  (void)scheduler.spawn(stopper(scheduler));
  scheduler.run();
  EXPECT_EQ(scheduler.state(looping), TaskState::ready);  // destroyed with the scheduler
}

// An awaitable that parks the task with nothing that will ever wake it.
struct ParkForever {
  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> h) const noexcept { detail::Kernel::current().block_current(h); }
  void await_resume() const noexcept {}
};

TEST(Scheduler, ReportsADeadlockInsteadOfHanging) {
  Scheduler scheduler;
  auto stuck = []() -> Task<void> { co_await ParkForever{}; };
  (void)scheduler.spawn(stuck());
  EXPECT_THROW(scheduler.run(), std::logic_error);
}

// The real clock is read through the cycle counter between readings of
// steady_clock (coro/internal/ticked_steady_clock.cpp). Over a run of
// readings long enough to cross several of its refreshes it never goes
// back; and a reading taken between two of steady_clock's lies after the
// first, and past it by less than twice the span between the two (the span,
// measured in the same test, is the control: no bound of the test's own).
TEST(Scheduler, ItsRealClockNeverGoesBackAndKeepsToSteadyClock) {
  Scheduler scheduler;
  constexpr int kReadings = 200'000;  // several milliseconds of readings: refreshes happen among them
  for (int round = 0; round < 3; ++round) {
    const Scheduler::Clock::time_point before = Scheduler::Clock::now();
    Scheduler::Clock::time_point previous = scheduler.now();
    int backwards = 0;
    for (int i = 0; i < kReadings; ++i) {
      const Scheduler::Clock::time_point now = scheduler.now();
      if (now < previous) ++backwards;
      previous = now;
    }
    const Scheduler::Clock::time_point last = scheduler.now();
    const Scheduler::Clock::time_point after = Scheduler::Clock::now();
    EXPECT_EQ(backwards, 0);
    EXPECT_GT(last, before);
    EXPECT_LT(last - before, 2 * (after - before));
  }
}

}  // namespace
}  // namespace tiffany
