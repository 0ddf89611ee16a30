// Task-local context: visible to the task, snapshotted into what it spawns,
// isolated by copy on write, and handed to the slow-task logger.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <tiffany/coro/cycle_clock.hpp>
#include <tiffany/coro/gather.hpp>
#include <tiffany/coro/race.hpp>
#include <tiffany/coro/syscalls.hpp>
#include <tiffany/coro/task_context.hpp>

namespace tiffany {
namespace {

using namespace std::chrono_literals;

const ContextVar<std::string> kUser{"test.user"};
const ContextVar<int> kBudget{"test.budget"};

std::string user_or_none() {
  const std::string* user = kUser.get();
  return user != nullptr ? *user : "none";
}

Task<std::string> report_user() {
  co_await Yield{};
  co_return user_or_none();
}

TEST(TaskContext, ATaskSeesWhatItSetAndChildrenGetASnapshotAtSpawn) {
  Scheduler scheduler;
  auto parent = []() -> Task<std::vector<std::string>> {
    std::vector<std::string> seen;
    seen.push_back(user_or_none());
    kUser.set("ada");
    seen.push_back(user_or_none());
    auto child = co_await Spawn{report_user()};  // inherits "ada"
    kUser.set("grace");                          // after the spawn: the child keeps its snapshot
    seen.push_back(co_await Join{std::move(child)});
    seen.push_back(user_or_none());
    co_return seen;
  };
  auto handle = scheduler.spawn(parent());
  scheduler.run();
  EXPECT_EQ(handle.take_result(), (std::vector<std::string>{"none", "ada", "ada", "grace"}));
}

TEST(TaskContext, WhatAChildSetsStaysInTheChild) {
  Scheduler scheduler;
  auto child = []() -> Task<std::string> {
    kUser.set("child");
    co_return user_or_none();
  };
  auto parent = [&]() -> Task<std::string> {
    kUser.set("parent");
    const std::string from_child = co_await Join{co_await Spawn{child()}};
    co_return from_child + "/" + user_or_none();
  };
  auto handle = scheduler.spawn(parent());
  scheduler.run();
  EXPECT_EQ(handle.take_result(), "child/parent");
}

TEST(TaskContext, GatherAndRaceChildrenSeeTheCallersValues) {
  Scheduler scheduler;
  auto parent = []() -> Task<std::string> {
    kUser.set("lin");
    std::vector<Task<std::string>> gathered;
    gathered.push_back(report_user());
    gathered.push_back(report_user());
    const std::vector<std::string> all = co_await gather(std::move(gathered));
    std::vector<Task<std::string>> raced;
    raced.push_back(report_user());
    const RaceResult<std::string> first = co_await race(std::move(raced));
    co_return all[0] + "," + all[1] + "," + first.value;
  };
  auto handle = scheduler.spawn(parent());
  scheduler.run();
  EXPECT_EQ(handle.take_result(), "lin,lin,lin");
}

TEST(TaskContext, VariablesAreKnownByNameAndTypeAndCanBeReset) {
  Scheduler scheduler;
  auto body = []() -> Task<std::string> {
    kBudget.set(250);
    const ContextVar<int> same_name{"test.budget"};       // e.g. a plugin's copy of the declaration
    const ContextVar<std::string> other_type{"test.budget"};
    std::string out = std::to_string(*same_name.get()) + (other_type.get() == nullptr ? " typed" : " untyped");
    kBudget.reset();
    out += kBudget.get() == nullptr ? " reset" : " kept";
    co_return out;
  };
  auto handle = scheduler.spawn(body());
  scheduler.run();
  EXPECT_EQ(handle.take_result(), "250 typed reset");
}

TEST(TaskContext, SettingOutsideATaskIsAnErrorAndReadingGivesNothing) {
  EXPECT_EQ(kUser.get(), nullptr);
  EXPECT_THROW(kUser.set("nobody"), std::logic_error);
  Scheduler scheduler;
  EXPECT_EQ(kUser.get(), nullptr);
}

TEST(TaskContext, AContextHoldsEightVariables) {
  Scheduler scheduler;
  auto body = []() -> Task<bool> {
    static const char* const kNames[] = {"v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8"};
    for (int i = 0; i < 8; ++i) ContextVar<int>{kNames[i]}.set(i);
    try {
      ContextVar<int>{kNames[8]}.set(8);
    } catch (const std::length_error&) {
      co_return *ContextVar<int>{kNames[7]}.get() == 7;
    }
    co_return false;
  };
  auto handle = scheduler.spawn(body());
  scheduler.run();
  EXPECT_TRUE(handle.take_result());
}

TEST(TaskContext, TheSlowTaskLoggerGetsTheContextOfATaskThatJustFinished) {
  Scheduler scheduler(SchedulerOptions{.slow_task_threshold = 5ms});
  std::vector<std::string> warnings;
  scheduler.set_slow_task_logger([&](TaskId, std::chrono::nanoseconds, const TaskContext* context) {
    const std::string* user = kUser.get_from(context);
    warnings.push_back(user != nullptr ? *user : "no context");
  });
  auto hog = []() -> Task<void> {
    kUser.set("blocking-handler");
    std::this_thread::sleep_for(20ms);  // blocks the worker, then ends in the same run
    co_return;
  };
  (void)scheduler.spawn(hog());
  scheduler.run();
  EXPECT_EQ(warnings, std::vector<std::string>{"blocking-handler"});
}

TEST(TaskTrace, RecordsTheWorkerOfItsScheduler) {
  Scheduler scheduler(SchedulerOptions{.trace_capacity = 8, .worker = 3});
  auto body = []() -> Task<void> { co_await Yield{}; };
  const TaskId id = scheduler.spawn(body()).tid();
  scheduler.run();
  std::ostringstream dump;
  scheduler.trace()->dump(dump);
  EXPECT_NE(dump.str().find(" worker 3 task " + std::to_string(id) + " complete\n"), std::string::npos) << dump.str();
  // Times are steady_clock nanoseconds, in order.
  const auto events = scheduler.trace()->events();
  ASSERT_EQ(events.size(), 5u);
  for (std::size_t i = 1; i < events.size(); ++i) EXPECT_LE(events[i - 1].time_ns, events[i].time_ns);
  const auto now = std::chrono::steady_clock::now().time_since_epoch().count();
  EXPECT_LE(events.back().time_ns, now);
  EXPECT_GT(events.back().time_ns, now - std::chrono::nanoseconds(10s).count());
}

TEST(TaskTrace, EventsReadBackInTheOrderOfTheirStampsEvenFourToATick) {
  // Why four events a tick, read back a hundred times: the stamps of a real
  // run are a few hundred ticks apart, and each used to be converted with a
  // clock reading of its own, so a reading delayed by a preempted thread (a
  // loaded machine, a descheduled vCPU) moved one event past the next: the
  // RecordsTheWorkerOfItsScheduler flake. Equal stamps show any such skew.
  TaskTrace trace(64, 0, TaskTrace::Stamps::cycle_ticks);
  const std::uint64_t start = CycleClock::now();
  for (std::uint64_t i = 0; i < 64; ++i) trace.record(start + i / 4, 7, TaskEvent::resume);
  for (int round = 0; round < 100; ++round) {
    const auto events = trace.events();
    ASSERT_EQ(events.size(), 64u);
    for (std::size_t i = 1; i < events.size(); ++i) {
      ASSERT_LE(events[i - 1].time_ns, events[i].time_ns) << "round " << round << ", event " << i;
      if (i % 4 != 0) {
        ASSERT_EQ(events[i - 1].time_ns, events[i].time_ns) << "round " << round << ", event " << i;
      }
    }
  }
}

TEST(TaskTrace, AStampBehindTheLastIsRaisedToItSoTheTraceReadsInOrder) {
  // As when the thread moved to a core whose cycle counter lags a little.
  TaskTrace trace(4, 0, TaskTrace::Stamps::nanoseconds);
  trace.record(1000, 7, TaskEvent::resume);
  trace.record(910, 7, TaskEvent::suspend);
  trace.record(1200, 7, TaskEvent::resume);
  const auto events = trace.events();
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].time_ns, 1000);
  EXPECT_EQ(events[1].time_ns, 1000);
  EXPECT_EQ(events[2].time_ns, 1200);
}

}  // namespace
}  // namespace tiffany
