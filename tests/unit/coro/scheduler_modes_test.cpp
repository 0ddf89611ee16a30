// Scheduler modes: the priority policy, deterministic stepping on a virtual
// clock, counters, the event trace and the slow-task warning.
#include <gtest/gtest.h>

#include <chrono>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <tiffany/coro/external_promise.hpp>
#include <tiffany/coro/manual_clock.hpp>
#include <tiffany/coro/syscalls.hpp>

namespace tiffany {
namespace {

using namespace std::chrono_literals;
using Log = std::vector<std::string>;

Task<void> note(Log& log, std::string name, int yields = 0) {
  for (int i = 0; i <= yields; ++i) {
    log.push_back(name + std::to_string(i));
    if (i < yields) co_await Yield{};
  }
}

TEST(SchedulerPolicy, PriorityRunsHigherPrioritiesFirstAndFifoWithin) {
  Log log;
  Scheduler scheduler(SchedulerOptions{.policy = SchedulingPolicy::priority});
  (void)scheduler.spawn(note(log, "low", 1), 1);
  (void)scheduler.spawn(note(log, "high", 1), 6);
  (void)scheduler.spawn(note(log, "normal", 1));
  (void)scheduler.spawn(note(log, "high2-", 1), 6);
  scheduler.run();
  EXPECT_EQ(log, (Log{"high0", "high2-0", "high1", "high2-1", "normal0", "normal1", "low0", "low1"}));
}

TEST(SchedulerPolicy, FifoIgnoresPriorities) {
  Log log;
  Scheduler scheduler;
  (void)scheduler.spawn(note(log, "low"), 0);
  (void)scheduler.spawn(note(log, "high"), kMaxPriority);
  scheduler.run();
  EXPECT_EQ(log, (Log{"low0", "high0"}));
}

TEST(DeterministicMode, StepResumesOneTaskAtATime) {
  Log log;
  ManualClock clock;
  Scheduler scheduler(SchedulerOptions{.clock = &clock});
  (void)scheduler.spawn(note(log, "a", 1));
  (void)scheduler.spawn(note(log, "b", 1));
  EXPECT_TRUE(scheduler.step());
  EXPECT_EQ(log, Log{"a0"});
  EXPECT_TRUE(scheduler.step());
  EXPECT_EQ(log, (Log{"a0", "b0"}));
  scheduler.run_until_idle();
  EXPECT_EQ(log, (Log{"a0", "b0", "a1", "b1"}));
  EXPECT_FALSE(scheduler.step());
}

TEST(DeterministicMode, AdvanceFiresTimersInOrderWithoutSleeping) {
  Log log;
  ManualClock clock;
  Scheduler scheduler(SchedulerOptions{.clock = &clock});
  auto sleeper = [](Log& out, std::chrono::milliseconds d, std::string name) -> Task<void> {
    co_await Sleep{d};
    out.push_back(name);
  };
  (void)scheduler.spawn(sleeper(log, 30ms, "30"));
  (void)scheduler.spawn(sleeper(log, 10ms, "10"));
  (void)scheduler.spawn(sleeper(log, 20ms, "20"));
  const auto wall = std::chrono::steady_clock::now();
  scheduler.run_until_idle();
  scheduler.advance(15ms);
  EXPECT_EQ(log, Log{"10"});
  scheduler.advance(10ms);
  EXPECT_EQ(log, (Log{"10", "20"}));
  scheduler.advance(1h);
  EXPECT_EQ(log, (Log{"10", "20", "30"}));
  EXPECT_LT(std::chrono::steady_clock::now() - wall, 1s);  // virtual hours, real milliseconds
}

TEST(DeterministicMode, RunJumpsVirtualTimeToTheNextDeadline) {
  ManualClock clock;
  Scheduler scheduler(SchedulerOptions{.clock = &clock});
  const auto start = clock.now();
  auto sleeper = []() -> Task<void> { co_await Sleep{24h}; };
  (void)scheduler.spawn(sleeper());
  scheduler.run();
  EXPECT_EQ(clock.now() - start, 24h);
}

TEST(DeterministicMode, ACanceledSleepDoesNotMoveVirtualTime) {
  ManualClock clock;
  Scheduler scheduler(SchedulerOptions{.clock = &clock});
  const auto start = clock.now();
  auto sleeper = []() -> Task<void> { co_await Sleep{1h}; };
  auto doomed = scheduler.spawn(sleeper());
  scheduler.run_until_idle();
  doomed.cancel();
  // The only other task waits for another thread; the scheduler must wait
  // with it instead of jumping to the canceled sleep's hour.
  ExternalPromise<int> promise;
  auto waiter = [](ExternalFuture<int> future) -> Task<int> { co_return co_await std::move(future); };
  auto handle = scheduler.spawn(waiter(promise.future()));
  std::thread completer([&promise] {
    std::this_thread::sleep_for(20ms);
    promise.set_value(5);
  });
  scheduler.run();
  completer.join();
  EXPECT_EQ(handle.take_result(), 5);
  EXPECT_EQ(clock.now() - start, 0h);
}

TEST(DeterministicMode, ManyCanceledSleepsLeaveNoTimersBehind) {
  ManualClock clock;
  Scheduler scheduler(SchedulerOptions{.clock = &clock});
  auto sleeper = []() -> Task<void> { co_await Sleep{1h}; };
  std::vector<JoinHandle<void>> sleepers;
  for (int i = 0; i < 1000; ++i) sleepers.push_back(scheduler.spawn(sleeper()));
  scheduler.run_until_idle();
  for (auto& handle : sleepers) handle.cancel();
  scheduler.run_until_idle();
  EXPECT_EQ(scheduler.pending_sleeps(), 0u);
  auto short_nap = []() -> Task<void> { co_await Sleep{10ms}; };
  (void)scheduler.spawn(short_nap());
  const auto start = clock.now();
  scheduler.run();
  EXPECT_EQ(clock.now() - start, 10ms);
}

TEST(Observability, CountersFollowTasks) {
  Scheduler scheduler;
  scheduler.set_failure_logger([](TaskId, const std::exception_ptr&) {});
  auto ok = []() -> Task<void> { co_await Yield{}; };
  auto bad = []() -> Task<void> {
    co_await Yield{};
    throw std::runtime_error("x");
  };
  auto forever = []() -> Task<void> { co_await Sleep{1h}; };
  (void)scheduler.spawn(ok());
  (void)scheduler.spawn(bad());
  auto doomed = scheduler.spawn(forever());
  scheduler.run_until_idle();
  doomed.cancel();
  scheduler.run();
  const SchedulerStats& stats = scheduler.stats();
  EXPECT_EQ(stats.spawned, 3u);
  EXPECT_EQ(stats.completed, 1u);
  EXPECT_EQ(stats.failed, 1u);
  EXPECT_EQ(stats.canceled, 1u);
  EXPECT_EQ(stats.context_switches, 6u);  // ok ×2, bad ×2, forever ×2 (start, then wake to unwind)
}

TEST(Observability, TheTraceRingKeepsTheLastEventsInOrder) {
  Scheduler scheduler(SchedulerOptions{.trace_capacity = 4});
  auto body = []() -> Task<void> { co_await Yield{}; };
  const TaskId id = scheduler.spawn(body()).tid();
  scheduler.run();
  // spawn, resume, suspend, resume, complete: the ring of 4 keeps the last four.
  std::ostringstream dump;
  scheduler.trace()->dump(dump);
  const std::string text = dump.str();
  const std::string prefix = " task " + std::to_string(id) + " ";
  std::vector<std::string> events;
  for (const auto& entry : scheduler.trace()->events()) events.emplace_back(to_string(entry.event));
  EXPECT_EQ(events, (std::vector<std::string>{"resume", "suspend", "resume", "complete"}));
  EXPECT_NE(text.find(prefix + "complete\n"), std::string::npos) << text;
}

TEST(Observability, WarnsAboutATaskThatForgotToYield) {
  Scheduler scheduler(SchedulerOptions{.slow_task_threshold = 5ms});
  std::vector<std::pair<TaskId, std::chrono::nanoseconds>> warnings;
  scheduler.set_slow_task_logger(
      [&](TaskId id, std::chrono::nanoseconds ran, const TaskContext*) { warnings.emplace_back(id, ran); });
  auto hog = []() -> Task<void> {
    std::this_thread::sleep_for(20ms);  // blocks the whole worker: exactly what the warning is for
    co_return;
  };
  auto polite = []() -> Task<void> { co_await Yield{}; };
  const TaskId hog_id = scheduler.spawn(hog()).tid();
  (void)scheduler.spawn(polite());
  scheduler.run();
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0].first, hog_id);
  EXPECT_GE(warnings[0].second, 20ms);
  EXPECT_GE(scheduler.stats().longest_run, 20ms);
  EXPECT_EQ(scheduler.stats().slow_runs, 1u);
}

}  // namespace
}  // namespace tiffany
