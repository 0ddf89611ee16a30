// gather, race and with_timeout on virtual time: exact, and no real sleeping.
#include <gtest/gtest.h>

#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

#include <tiffany/coro/deadline.hpp>
#include <tiffany/coro/gather.hpp>
#include <tiffany/coro/manual_clock.hpp>
#include <tiffany/coro/race.hpp>
#include <tiffany/coro/syscalls.hpp>
#include <tiffany/coro/with_timeout.hpp>

namespace tiffany {
namespace {

using namespace std::chrono_literals;
using Log = std::vector<std::string>;

Task<int> value_after(std::chrono::milliseconds delay, int value, Log* log = nullptr) {
  co_await Sleep{delay};
  if (log != nullptr) log->push_back("finished " + std::to_string(value));
  co_return value;
}

Task<int> fail_after(std::chrono::milliseconds delay, const char* message) {
  co_await Sleep{delay};
  throw std::runtime_error(message);
}

// Ends canceled by its own Deadline after `delay`: a cancellation that comes
// from inside, not from a gather or race around it.
Task<int> canceled_by_own_deadline(std::chrono::milliseconds delay) {
  Deadline deadline = Deadline::after(delay);
  co_await Sleep{1h};
  co_return -1;
}

class StructuredTest : public ::testing::Test {
 protected:
  // "<what the task raised or returned> at <virtual ms>".
  template <class T>
  Task<std::string> outcome_of(Task<T> task) {
    std::string what = "returned";
    try {
      (void)co_await std::move(task);
    } catch (const TaskCanceled&) {
      what = "TaskCanceled";
    } catch (const TimeoutError&) {
      what = "TimeoutError";
    }
    co_return what + " at " + std::to_string(elapsed_ms()) + "ms";
  }
  long elapsed_ms() const {
    return static_cast<long>(std::chrono::duration_cast<std::chrono::milliseconds>(clock_.now() - start_).count());
  }

  template <class T>
  T run(Task<T> task) {
    start_ = clock_.now();
    auto handle = scheduler_.spawn(std::move(task));
    scheduler_.run();
    finished_at_ = clock_.now() - start_;
    return handle.take_result();
  }

  ManualClock clock_;
  Scheduler scheduler_{SchedulerOptions{.clock = &clock_}};
  ManualClock::time_point start_;
  std::chrono::nanoseconds finished_at_{0};
};

TEST_F(StructuredTest, GatherReturnsResultsInInputOrder) {
  std::vector<Task<int>> tasks;
  tasks.push_back(value_after(30ms, 1));
  tasks.push_back(value_after(10ms, 2));
  tasks.push_back(value_after(20ms, 3));
  EXPECT_EQ(run(gather(std::move(tasks))), (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(finished_at_, 30ms);  // concurrently: the slowest, not the sum
}

TEST_F(StructuredTest, GatherOfNothingIsEmpty) {
  EXPECT_TRUE(run(gather(std::vector<Task<int>>{})).empty());
  EXPECT_EQ(finished_at_, 0ms);
}

TEST_F(StructuredTest, GatherFailsFastAndLeavesTheOthersRunning) {
  Log log;
  auto parent = [&]() -> Task<std::string> {
    std::vector<Task<int>> tasks;
    tasks.push_back(value_after(100ms, 1, &log));
    tasks.push_back(fail_after(10ms, "second failed"));
    try {
      (void)co_await gather(std::move(tasks));
    } catch (const std::runtime_error& e) {
      co_return std::string(e.what()) + " at " +
          std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(clock_.now() - start_).count()) +
          "ms";
    }
    co_return "no error";
  };
  EXPECT_EQ(run(parent()), "second failed at 10ms");
  EXPECT_EQ(log, Log{"finished 1"});  // the other task was not canceled
}

TEST_F(StructuredTest, GatherOfDifferentTypesGivesATuple) {
  auto text = []() -> Task<std::string> {
    co_await Sleep{5ms};
    co_return "five";
  };
  auto [number, word] = run(gather(value_after(7ms, 7), text()));
  EXPECT_EQ(number, 7);
  EXPECT_EQ(word, "five");
  EXPECT_EQ(finished_at_, 7ms);
}

TEST_F(StructuredTest, GatherOfVoidTasksWaitsForAll) {
  Log log;
  auto note = [](Log& out, std::chrono::milliseconds d, std::string name) -> Task<void> {
    co_await Sleep{d};
    out.push_back(name);
  };
  std::vector<Task<void>> tasks;
  tasks.push_back(note(log, 20ms, "a"));
  tasks.push_back(note(log, 10ms, "b"));
  run(gather(std::move(tasks)));
  EXPECT_EQ(log, (Log{"b", "a"}));
  EXPECT_EQ(finished_at_, 20ms);
}

TEST_F(StructuredTest, RaceReturnsTheWinnerAtTheWinnersTime) {
  Log log;
  std::vector<Task<int>> tasks;
  tasks.push_back(value_after(50ms, 1, &log));
  tasks.push_back(value_after(20ms, 2, &log));
  tasks.push_back(value_after(80ms, 3, &log));
  auto parent = [&](std::vector<Task<int>> racers) -> Task<RaceResult<int>> {
    RaceResult<int> result = co_await race(std::move(racers));
    log.push_back("race returned at " + std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(
                                                           clock_.now() - start_)
                                                           .count()) +
                  "ms");
    co_return result;
  };
  const RaceResult<int> result = run(parent(std::move(tasks)));
  EXPECT_EQ(result.index, 1u);
  EXPECT_EQ(result.value, 2);
  // The losers were canceled at their Sleep: their code after it never ran.
  EXPECT_EQ(log, (Log{"finished 2", "race returned at 20ms"}));
  EXPECT_EQ(scheduler_.stats().canceled, 2u);
}

// Why: a loser woken in the same turn as the winner (its value was ready too)
// must not run past its suspension point: what it took (a queued message, say)
// would be lost, since the race reports the winner only.
TEST_F(StructuredTest, ALoserWokenInTheWinnersTurnNeverRunsPastItsWait) {
  Log log;
  std::vector<Task<int>> tasks;
  tasks.push_back(value_after(20ms, 1, &log));
  tasks.push_back(value_after(20ms, 2, &log));
  const RaceResult<int> result = run(race(std::move(tasks)));
  EXPECT_EQ(log, (Log{"finished " + std::to_string(result.value)}));
  EXPECT_EQ(scheduler_.stats().canceled, 1u);
}

TEST_F(StructuredTest, RacePropagatesTheFirstError) {
  Log log;
  std::vector<Task<int>> tasks;
  tasks.push_back(value_after(50ms, 1, &log));
  tasks.push_back(fail_after(5ms, "racer failed"));
  auto parent = [&]() -> Task<std::string> {
    try {
      (void)co_await race(std::move(tasks));
    } catch (const std::runtime_error& e) {
      co_return e.what();
    }
    co_return "no error";
  };
  EXPECT_EQ(run(parent()), "racer failed");
  EXPECT_TRUE(log.empty());  // the slower racer was canceled
}

TEST_F(StructuredTest, WithTimeoutReturnsTheValueInTime) {
  EXPECT_EQ(run(with_timeout(value_after(10ms, 42), 100ms)), 42);
  EXPECT_EQ(finished_at_, 10ms);
}

TEST_F(StructuredTest, WithTimeoutThrowsAndCancelsTheSlowTask) {
  Log log;
  auto parent = [&]() -> Task<std::string> {
    try {
      (void)co_await with_timeout(value_after(1h, 1, &log), 25ms);
    } catch (const TimeoutError&) {
      co_return "timed out";
    }
    co_return "no timeout";
  };
  EXPECT_EQ(run(parent()), "timed out");
  EXPECT_EQ(finished_at_, 25ms);
  EXPECT_TRUE(log.empty());
}

TEST_F(StructuredTest, CancelingAGatherCancelsItsChildren) {
  Log log;
  std::vector<Task<int>> tasks;
  tasks.push_back(value_after(1h, 1, &log));
  tasks.push_back(value_after(2h, 2, &log));
  auto handle = scheduler_.spawn(gather(std::move(tasks)));
  scheduler_.run_until_idle();
  handle.cancel();
  scheduler_.run();
  EXPECT_THROW(handle.take_result(), TaskCanceled);
  EXPECT_TRUE(log.empty());
  EXPECT_EQ(scheduler_.stats().canceled, 3u);  // the gather and both children
}

TEST_F(StructuredTest, RaceRaisesTaskCanceledAtOnceWhenEveryRacerEndsCanceled) {
  std::vector<Task<int>> tasks;
  tasks.push_back(canceled_by_own_deadline(10ms));
  tasks.push_back(canceled_by_own_deadline(20ms));
  EXPECT_EQ(run(outcome_of(race(std::move(tasks)))), "TaskCanceled at 10ms");
  EXPECT_EQ(scheduler_.task_count(), 0u);
}

TEST_F(StructuredTest, RaceRaisesARacersOwnCancellationAndCancelsTheOthers) {
  Log log;
  std::vector<Task<int>> tasks;
  tasks.push_back(value_after(50ms, 1, &log));
  tasks.push_back(canceled_by_own_deadline(10ms));
  EXPECT_EQ(run(outcome_of(race(std::move(tasks)))), "TaskCanceled at 10ms");
  EXPECT_EQ(finished_at_, 10ms);  // the other racer was canceled, not waited for
  EXPECT_TRUE(log.empty());
}

TEST_F(StructuredTest, WithTimeoutPropagatesAnInnerCancellationWhenItHappens) {
  EXPECT_EQ(run(outcome_of(with_timeout(canceled_by_own_deadline(10ms), 1h))), "TaskCanceled at 10ms");
  EXPECT_EQ(finished_at_, 10ms);
}

TEST_F(StructuredTest, GatherTreatsAChildsCancellationAsAFailureAndLeavesTheOthersRunning) {
  Log log;
  std::vector<Task<int>> tasks;
  tasks.push_back(value_after(100ms, 1, &log));
  tasks.push_back(canceled_by_own_deadline(10ms));
  EXPECT_EQ(run(outcome_of(gather(std::move(tasks)))), "TaskCanceled at 10ms");
  EXPECT_EQ(log, Log{"finished 1"});  // the sibling was not canceled
  EXPECT_EQ(scheduler_.stats().canceled, 1u);  // only the child that canceled itself
}

TEST_F(StructuredTest, GatherOfVoidAndOfTuplesAlsoTreatACancellationAsAFailure) {
  Log log;
  auto note_after = [](Log& out, std::chrono::milliseconds delay) -> Task<void> {
    co_await Sleep{delay};
    out.push_back("void child finished");
  };
  auto void_canceled = []() -> Task<void> { (void)co_await canceled_by_own_deadline(5ms); };
  std::vector<Task<void>> tasks;
  tasks.push_back(note_after(log, 30ms));
  tasks.push_back(void_canceled());
  EXPECT_EQ(run(outcome_of(gather(std::move(tasks)))), "TaskCanceled at 5ms");
  EXPECT_EQ(run(outcome_of(gather(value_after(40ms, 4, &log), canceled_by_own_deadline(15ms)))),
            "TaskCanceled at 15ms");
  EXPECT_EQ(log, (Log{"void child finished", "finished 4"}));
}

}  // namespace
}  // namespace tiffany
