// worker_local<T>(): one value per scheduler, made on first use, gone with its scheduler, last made first.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include <tiffany/coro/scheduler.hpp>
#include <tiffany/coro/sleep.hpp>

#include "coro/engine/worker_local.hpp"

namespace tiffany {
namespace {

std::vector<std::string>& ends() {
  static std::vector<std::string> seen;
  return seen;
}

// Values whose end is recorded, so a test can see when and in which order they go.
struct Counter {
  int value = 0;
  ~Counter() { ends().push_back("counter " + std::to_string(value)); }
};
struct Label {
  std::string text = "unnamed";
  ~Label() { ends().push_back("label " + text); }
};

TEST(WorkerLocal, EachSchedulerSharingAThreadHasItsOwnValue) {
  ends().clear();
  const Scheduler::SharedThread shared;
  auto first = std::make_unique<Scheduler>();
  auto second = std::make_unique<Scheduler>();
  {
    const Scheduler::CurrentScope scope(*first);
    worker_local<Counter>().value = 1;
  }
  {
    const Scheduler::CurrentScope scope(*second);
    EXPECT_EQ(worker_local<Counter>().value, 0) << "the second scheduler saw the first one's value";
    worker_local<Counter>().value = 2;
  }
  {
    const Scheduler::CurrentScope scope(*first);
    EXPECT_EQ(worker_local<Counter>().value, 1);
    EXPECT_EQ(&worker_local<Counter>(), &worker_local<Counter>()) << "made twice";
  }
  first.reset();
  EXPECT_EQ(ends(), std::vector<std::string>{"counter 1"}) << "the first scheduler's value did not go with it";
  second.reset();
  EXPECT_EQ(ends(), (std::vector<std::string>{"counter 1", "counter 2"}));
}

TEST(WorkerLocal, ASchedulersValuesGoLastMadeFirstAfterItsTasks) {
  ends().clear();
  {
    Scheduler scheduler;
    worker_local<Label>().text = "made first";
    worker_local<Counter>().value = 7;
    // A task still waiting when the scheduler goes: its frame is destroyed
    // before the values, so what it held may still use them.
    struct UsesTheLabel {
      ~UsesTheLabel() { ends().push_back("task saw " + worker_local<Label>().text); }
    };
    scheduler.spawn([]() -> Task<void> {
      const UsesTheLabel uses;
      co_await Sleep{std::chrono::hours(1)};
    }());
    scheduler.run_until_idle();
  }
  EXPECT_EQ(ends(), (std::vector<std::string>{"task saw made first", "counter 7", "label made first"}));
}

TEST(WorkerLocal, OutsideAnySchedulerTheValueIsTheThreads) {
  {
    Scheduler scheduler;  // current here: its own value, not the thread's
    EXPECT_EQ(worker_local<Counter>().value, 0);
    worker_local<Counter>().value = 3;
  }
  Counter* outside = &worker_local<Counter>();
  EXPECT_EQ(outside->value, 0) << "the scheduler's value leaked to the thread";
  outside->value = 4;
  EXPECT_EQ(&worker_local<Counter>(), outside);
  EXPECT_EQ(worker_local<Counter>().value, 4) << "the thread's value is kept between calls";
}

}  // namespace
}  // namespace tiffany
