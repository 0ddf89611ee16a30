// Futures: one waiter per Future, every waiter of a SharedFuture, and
// promises that outlive the scheduler of the task waiting on them.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include <tiffany/coro/external_promise.hpp>
#include <tiffany/coro/promise.hpp>
#include <tiffany/coro/syscalls.hpp>

namespace tiffany {
namespace {

using Log = std::vector<std::string>;

TEST(Future, CannotBeCopiedSoNoWaiterIsSilentlyLost) {
  EXPECT_FALSE(std::is_copy_constructible_v<Future<int>>);
  EXPECT_FALSE(std::is_copy_assignable_v<Future<int>>);
  EXPECT_FALSE(std::is_copy_constructible_v<ExternalFuture<int>>);
  EXPECT_FALSE(std::is_copy_assignable_v<ExternalFuture<int>>);
  EXPECT_TRUE(std::is_move_constructible_v<Future<int>>);
  EXPECT_TRUE(std::is_copy_constructible_v<SharedFuture<int>>);
}

// Awaits `future` through a reference, as two tasks sharing one Future would.
template <class F>
Task<void> await_by_reference(F& future, Log& log, std::string name) {
  try {
    const int value = co_await std::move(future);
    log.push_back(name + " got " + std::to_string(value));
  } catch (const std::logic_error& e) {
    log.push_back(name + " refused: " + e.what());
  }
}

TEST(Future, ASecondConcurrentWaiterIsRefusedAndTheFirstStillWakes) {
  Scheduler scheduler;
  Promise<int> promise;
  Future<int> future = promise.future();
  Log log;
  (void)scheduler.spawn(await_by_reference(future, log, "first"));
  (void)scheduler.spawn(await_by_reference(future, log, "second"));
  scheduler.run_until_idle();
  promise.set_value(7);
  scheduler.run();
  EXPECT_EQ(log, (Log{"second refused: a Future is awaited by one task at a time; share() it", "first got 7"}));
}

TEST(ExternalFuture, ASecondConcurrentWaiterIsRefusedAndTheFirstStillWakes) {
  Scheduler scheduler;
  ExternalPromise<int> promise;
  ExternalFuture<int> future = promise.future();
  Log log;
  (void)scheduler.spawn(await_by_reference(future, log, "first"));
  (void)scheduler.spawn(await_by_reference(future, log, "second"));
  scheduler.run_until_idle();
  std::thread completer([&promise] { promise.set_value(8); });
  scheduler.run();  // returns only if the first waiter was woken
  completer.join();
  EXPECT_EQ(log, (Log{"second refused: an ExternalFuture is awaited by one task at a time", "first got 8"}));
}

Task<void> await_shared(SharedFuture<std::string> future, Log& log, std::string name) {
  const std::string value = co_await future;
  log.push_back(name + " got " + value);
}

TEST(SharedFuture, WakesEveryWaiterAndServesLateOnes) {
  Scheduler scheduler;
  Promise<std::string> promise;
  SharedFuture<std::string> shared = promise.future().share();
  Log log;
  for (const char* name : {"a", "b", "c"}) (void)scheduler.spawn(await_shared(shared, log, name));
  auto canceled = scheduler.spawn(await_shared(shared, log, "canceled"));
  scheduler.run_until_idle();
  canceled.cancel();
  scheduler.run_until_idle();
  promise.set_value("upstream answer");
  (void)scheduler.spawn(await_shared(shared, log, "late"));
  scheduler.run();
  EXPECT_EQ(log, (Log{"a got upstream answer", "b got upstream answer", "c got upstream answer",
                      "late got upstream answer"}));  // in the order they came
  EXPECT_THROW(canceled.take_result(), TaskCanceled);
}

TEST(SharedFuture, RethrowsTheErrorToEveryWaiter) {
  Scheduler scheduler;
  Log log;
  auto waiter = [](SharedFuture<void> future, Log& out) -> Task<void> {
    try {
      co_await future;
    } catch (const BrokenPromise&) {
      out.push_back("broken");
    }
  };
  {
    Promise<void> promise;
    SharedFuture<void> shared = promise.future().share();
    (void)scheduler.spawn(waiter(shared, log));
    (void)scheduler.spawn(waiter(shared, log));
    scheduler.run_until_idle();
  }  // dropped unset
  scheduler.run();
  EXPECT_EQ(log, (Log{"broken", "broken"}));
}

Task<void> wait_forever(Future<int> future) { (void)co_await std::move(future); }

TEST(Promise, OutlivingTheSchedulerOfAParkedWaiterIsHarmless) {
  Promise<int> set_later;
  Promise<int> dropped_later;
  {
    Scheduler first;
    (void)first.spawn(wait_forever(set_later.future()));
    (void)first.spawn(wait_forever(dropped_later.future()));
    first.run_until_idle();
  }  // destroys both waiting tasks
  Scheduler newer;  // a newer scheduler on the same thread must not be touched either
  set_later.set_value(1);
  { Promise<int> gone = std::move(dropped_later); }
  EXPECT_EQ(newer.task_count(), 0u);
}

Task<void> wait_forever_external(ExternalFuture<int> future) { (void)co_await std::move(future); }

TEST(ExternalPromise, OutlivingTheSchedulerOfAParkedWaiterIsHarmless) {
  ExternalPromise<int> set_later;
  ExternalPromise<int> dropped_later;
  {
    Scheduler first;
    (void)first.spawn(wait_forever_external(set_later.future()));
    (void)first.spawn(wait_forever_external(dropped_later.future()));
    first.run_until_idle();
  }
  std::thread other([&] {
    set_later.set_value(2);
    ExternalPromise<int> gone = std::move(dropped_later);
  });
  other.join();
  Scheduler newer;
  EXPECT_EQ(newer.task_count(), 0u);
}

}  // namespace
}  // namespace tiffany
