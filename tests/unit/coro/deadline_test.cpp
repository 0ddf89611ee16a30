// Deadline: cancel a task at a time, re-armed cheaply, told apart from other cancels.
#include <tiffany/coro/deadline.hpp>
#include <tiffany/coro/kernel.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include <tiffany/coro/manual_clock.hpp>
#include <tiffany/coro/syscalls.hpp>

namespace tiffany {
namespace {

using namespace std::chrono_literals;

class DeadlineTest : public ::testing::Test {
 protected:
  std::chrono::milliseconds elapsed() const {
    return std::chrono::duration_cast<std::chrono::milliseconds>(clock_.now() - start_);
  }
  // Sleeps "forever" in the calling task: "expired at <ms>ms" when its
  // deadline cancels it, "slept" if nothing does.
  Task<std::string> report_expiry() {
    try {
      co_await Sleep{std::chrono::hours(1)};
    } catch (const TaskCanceled&) {
      co_return "expired at " + std::to_string(elapsed().count()) + "ms";
    }
    co_return "slept";
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

TEST_F(DeadlineTest, EachTaskExpiresAtItsLastTimeHoweverOftenItMoved) {
  constexpr int kTasks = 64;
  std::vector<int> expired_at(kTasks, -1);
  auto body = [&](int index) -> Task<void> {
    Deadline deadline = Deadline::after(1h);
    // Move it back and forth; the last time is 10 + (index * 37 % 64) ms.
    for (int round = 0; round < 50; ++round) {
      deadline.rearm_after(std::chrono::milliseconds(round % 2 == 0 ? 5 + round : 3000 - round));
      co_await Yield{};
    }
    deadline.rearm_after(std::chrono::milliseconds(10 + index * 37 % 64) - elapsed());
    try {
      co_await Sleep{1h};
    } catch (const TaskCanceled&) {
      expired_at[static_cast<std::size_t>(index)] = static_cast<int>(elapsed().count());
    }
  };
  for (int i = 0; i < kTasks; ++i) (void)scheduler_.spawn(body(i));
  scheduler_.run_until_idle();
  EXPECT_EQ(scheduler_.armed_deadlines(), static_cast<std::size_t>(kTasks));  // one entry per task
  scheduler_.run();
  for (int i = 0; i < kTasks; ++i) EXPECT_EQ(expired_at[static_cast<std::size_t>(i)], 10 + i * 37 % 64) << "task " << i;
  EXPECT_EQ(scheduler_.armed_deadlines(), 0u);
}

TEST_F(DeadlineTest, LeavesNoEntryBehindWhenItsTaskEnds) {
  // Why it matters: a server arms a deadline per request; entries outliving
  // their tasks would pile up for as long as the timeouts run.
  auto body = [&]() -> Task<void> {
    Deadline deadline = Deadline::after(1h);
    deadline.rearm_after(10s);
    co_await Yield{};
  };
  for (int i = 0; i < 1000; ++i) (void)scheduler_.spawn(body());
  scheduler_.run_until_idle();
  EXPECT_EQ(scheduler_.armed_deadlines(), 0u);
  EXPECT_EQ(elapsed(), 0ms);
}

TEST_F(DeadlineTest, AnUnarmedDeadlineWaitsUntilArmed) {
  auto body = [&]() -> Task<std::string> {
    Deadline deadline = Deadline::unarmed();
    co_await Sleep{20ms};  // nothing happens
    deadline.rearm_after(5ms);
    co_return co_await report_expiry();
  };
  auto handle = scheduler_.spawn(body());
  scheduler_.run();
  EXPECT_EQ(handle.take_result(), "expired at 25ms");
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
    co_return co_await report_expiry();
  };
  auto handle = scheduler_.spawn(body());
  scheduler_.run();
  EXPECT_EQ(handle.take_result(), "expired at 18ms");
}

TEST_F(DeadlineTest, RearmingEarlierTakesEffect) {
  auto body = [&]() -> Task<std::string> {
    Deadline deadline = Deadline::after(1h);
    deadline.rearm_after(3ms);
    co_return co_await report_expiry();
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

// Parks like an I/O operation: canceled, it wakes its task but, like bytes
// that arrived in the same instant, still returns its value; the
// cancellation stays pending for the task's next suspension point.
struct CompletesDespiteCancel final : CancelableWait {
  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> caller) noexcept { detail::Kernel::current().block_current(caller, this); }
  int await_resume() const noexcept { return 42; }
  void cancel_wait(detail::TaskRecord& task) noexcept override { detail::Kernel::current().wake(task); }
};

// A cancel the "kernel" confirms only when told to (see SlowToCancel).
struct PendingConfirmation {
  void confirm() const noexcept { detail::Kernel::current().wake(*canceled); }
  detail::TaskRecord* canceled = nullptr;
};

// Parks like I/O whose cancel the kernel takes time to confirm: canceled, it
// wakes its task only when the confirmation comes; then it throws the
// cancellation, as an operation that ended -ECANCELED does.
struct SlowToCancel final : CancelableWait {
  explicit SlowToCancel(PendingConfirmation& pending) : pending_(pending) {}
  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> caller) noexcept { detail::Kernel::current().block_current(caller, this); }
  void await_resume() const { detail::Kernel::current().throw_if_canceled(); }
  void cancel_wait(detail::TaskRecord& task) noexcept override { pending_.canceled = &task; }

 private:
  PendingConfirmation& pending_;
};

TEST_F(DeadlineTest, AnExpiryWhoseOperationFinishedAnywayIsTakenBackByMovingTheDeadline) {
  auto body = [&]() -> Task<std::string> {
    Deadline deadline = Deadline::after(10ms);
    const int got = co_await CompletesDespiteCancel{};  // the deadline fires; the value comes all the same
    const bool expired = deadline.expired();
    deadline.rearm_after(1h);  // the stage ended in time: the next one has a budget of its own
    co_await Sleep{5ms};       // so this is not canceled
    co_return std::to_string(got) + (expired ? " expired" : " in time") + (deadline.expired() ? ", still" : ", taken back");
  };
  auto handle = scheduler_.spawn(body());
  scheduler_.run();
  EXPECT_EQ(handle.take_result(), "42 expired, taken back");
}

TEST_F(DeadlineTest, AnExpiryNotTakenBackReachesTheTaskAtItsNextWait) {
  auto body = [&]() -> Task<std::string> {
    Deadline deadline = Deadline::after(10ms);
    (void)co_await CompletesDespiteCancel{};
    try {
      co_await Sleep{5ms};
    } catch (const TaskCanceled&) {
      co_return deadline.expired() ? "timed out" : "other cancel";
    }
    co_return "slept";
  };
  auto handle = scheduler_.spawn(body());
  scheduler_.run();
  EXPECT_EQ(handle.take_result(), "timed out");
}

TEST_F(DeadlineTest, MovedByAnotherTaskAnExpiryOnItsWayStillReadsAsAnExpiry) {
  PendingConfirmation cancel;
  Deadline* deadline_of_waiter = nullptr;
  auto waiter = [&]() -> Task<bool> {
    Deadline deadline = Deadline::after(10ms);
    deadline_of_waiter = &deadline;
    try {
      co_await SlowToCancel{cancel};
    } catch (const TaskCanceled&) {
      co_return deadline.expired();  // a timeout, not a shutdown
    }
    co_return false;
  };
  auto mover = [&]() -> Task<void> {
    co_await Sleep{20ms};  // the deadline expired at 10 ms; its cancel is not confirmed yet
    deadline_of_waiter->rearm_after(1h);  // as a drain shortening deadlines does
    cancel.confirm();
  };
  auto handle = scheduler_.spawn(waiter());
  (void)scheduler_.spawn(mover());
  scheduler_.run();
  EXPECT_TRUE(handle.take_result());
}

TEST_F(DeadlineTest, AnotherCancelJoiningAnExpiryIsNeverTakenBack) {
  auto body = [&]() -> Task<std::string> {
    Deadline deadline = Deadline::after(10ms);
    (void)co_await CompletesDespiteCancel{};
    Scheduler::current().cancel(detail::Kernel::current().current_task()->id());  // e.g. a shutdown, in the same instant
    deadline.rearm_after(1h);
    try {
      co_await Sleep{5ms};
    } catch (const TaskCanceled&) {
      co_return deadline.expired() ? "timed out" : "canceled";
    }
    co_return "slept";
  };
  auto handle = scheduler_.spawn(body());
  scheduler_.run();
  EXPECT_EQ(handle.take_result(), "canceled");
}

Task<int> value_after(std::chrono::milliseconds delay, int value) {
  co_await Sleep{delay};
  co_return value;
}

Task<void> nothing_after(std::chrono::milliseconds delay) { co_await Sleep{delay}; }

TEST_F(DeadlineTest, AGuardedWaitGivesItsValueWhenInTimeAndTimedOutWhenNot) {
  auto body = [&]() -> Task<std::string> {
    Deadline deadline = Deadline::after(10ms);
    Timed<int> quick = co_await deadline.guard(value_after(5ms, 7));
    deadline.rearm_after(10ms);
    Timed<int> slow = co_await deadline.guard(value_after(50ms, 8));
    deadline.rearm_after(10ms);
    Timed<void> done = co_await deadline.guard(nothing_after(1ms));
    deadline.rearm_after(10ms);
    Timed<void> late = co_await deadline.guard(nothing_after(1h));
    co_return std::to_string(*quick) + (slow.timed_out() ? " slow timed out" : " slow in time") +
        (done.timed_out() ? " done timed out" : " done in time") + (late.timed_out() ? " late timed out" : "") +
        " at " + std::to_string(elapsed().count()) + "ms";
  };
  auto handle = scheduler_.spawn(body());
  scheduler_.run();
  EXPECT_EQ(handle.take_result(), "7 slow timed out done in time late timed out at 26ms");
}

TEST_F(DeadlineTest, AGuardedWaitRethrowsACancelThatIsNotItsDeadlines) {
  auto body = [&]() -> Task<std::string> {
    Deadline deadline = Deadline::after(1h);
    try {
      Timed<int> got = co_await deadline.guard(value_after(1h, 1));
      co_return got.timed_out() ? "timed out" : "value";
    } catch (const TaskCanceled&) {
      co_return "canceled";  // a shutdown unwinds; it is not a timeout
    }
  };
  auto handle = scheduler_.spawn(body());
  scheduler_.run_until_idle();
  handle.cancel();
  scheduler_.run();
  EXPECT_EQ(handle.take_result(), "canceled");
}

TEST_F(DeadlineTest, NestedDeadlinesEachGuardTheirOwnWaitAndTheOuterOneStillHolds) {
  auto inner = [&]() -> Task<std::string> {
    Deadline deadline = Deadline::after(10ms);
    const Timed<void> waited = co_await deadline.guard(nothing_after(1h));
    co_return waited.timed_out() ? "inner timed out at " + std::to_string(elapsed().count()) + "ms" : "inner slept";
  };
  auto body = [&]() -> Task<std::string> {
    Deadline outer = Deadline::after(100ms);
    std::string report = co_await inner();  // its deadline is gone once it returns
    const Timed<void> rest = co_await outer.guard(nothing_after(1h));
    report += rest.timed_out() ? ", outer timed out at " + std::to_string(elapsed().count()) + "ms" : ", slept";
    co_return report;
  };
  auto handle = scheduler_.spawn(body());
  scheduler_.run();
  EXPECT_EQ(handle.take_result(), "inner timed out at 10ms, outer timed out at 100ms");
}

TEST_F(DeadlineTest, AnOuterExpiryPassesThroughTheInnerGuardToTheOuterOne) {
  bool inner_saw_timeout = false;
  auto inner = [&]() -> Task<void> {
    Deadline deadline = Deadline::after(1h);
    const Timed<void> waited = co_await deadline.guard(nothing_after(1h));  // rethrows the outer expiry
    inner_saw_timeout = waited.timed_out();
  };
  auto body = [&]() -> Task<std::string> {
    Deadline outer = Deadline::after(10ms);
    const Timed<void> waited = co_await outer.guard(inner());
    co_return waited.timed_out() ? "outer timed out at " + std::to_string(elapsed().count()) + "ms" : "done";
  };
  auto handle = scheduler_.spawn(body());
  scheduler_.run();
  EXPECT_EQ(handle.take_result(), "outer timed out at 10ms");
  EXPECT_FALSE(inner_saw_timeout);
}

TEST_F(DeadlineTest, ARearmedOuterDeadlineStaysInForceWhileAnInnerOneLives) {
  auto body = [&]() -> Task<std::string> {
    Deadline outer = Deadline::unarmed();
    Deadline inner = Deadline::after(1h);
    outer.rearm_after(20ms);  // moved while the inner one is the innermost (a drain does this)
    const Timed<void> waited = co_await inner.guard(nothing_after(1h));
    co_return std::string(waited.timed_out() ? "inner timed out" : "rethrown") + (outer.expired() ? ", outer expired" : "");
  };
  auto guarded = [&]() -> Task<std::string> {
    try {
      co_return co_await body();
    } catch (const TaskCanceled&) {
      co_return "canceled at " + std::to_string(elapsed().count()) + "ms";
    }
  };
  auto handle = scheduler_.spawn(guarded());
  scheduler_.run();
  EXPECT_EQ(handle.take_result(), "canceled at 20ms");  // the outer expiry, rethrown by the inner guard
}

TEST_F(DeadlineTest, ManyRearmsKeepTheTimerHeapSmall) {
  std::size_t most_entries = 0;
  auto body = [&]() -> Task<int> {
    Deadline deadline = Deadline::after(10ms);
    for (int i = 0; i < 10'000; ++i) {
      deadline.rearm_after(10ms);  // always ahead: it never fires
      co_await Sleep{1ms};         // time moves, so stale checks come due and re-key
      most_entries = std::max(most_entries, scheduler_.armed_deadlines());
    }
    co_return 0;
  };
  auto handle = scheduler_.spawn(body());
  scheduler_.run();
  EXPECT_EQ(handle.take_result(), 0);
  EXPECT_EQ(elapsed(), 10'000ms);
  EXPECT_EQ(most_entries, 1u);  // one entry for the task, however often it moved
  EXPECT_EQ(scheduler_.stats().canceled, 0u);
}

}  // namespace
}  // namespace tiffany
