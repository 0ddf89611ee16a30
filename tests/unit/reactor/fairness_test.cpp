// I/O fairness and cross-thread wake-ups with the real reactors.
#include <unistd.h>

#include <chrono>
#include <thread>

#include <tiffany/coro/external_promise.hpp>
#include <tiffany/coro/syscalls.hpp>
#include <tiffany/reactor/readiness.hpp>
#include <tiffany/reactor/unique_fd.hpp>

#include "reactor_fixture.hpp"
#include "support/pipe_ends.hpp"

namespace tiffany {
namespace {

using namespace std::chrono_literals;

using FairnessTest = ReactorTest;
INSTANTIATE_TEST_SUITE_P(Backends, FairnessTest, all_backends(), backend_name);

TEST_P(FairnessTest, AStreamOfReadyTasksCannotStarveIo) {
  const testing::Pipe pipe;
  ASSERT_EQ(::write(pipe.write_end.get(), "x", 1), 1);  // readable from the start

  constexpr int kYielders = 1000;
  constexpr int kRounds = 100;
  int yielder_rounds_done = 0;
  int rounds_when_io_woke = -1;
  auto yielder = [&]() -> Task<void> {
    for (int i = 0; i < kRounds; ++i) co_await Yield{};
    ++yielder_rounds_done;
  };
  auto reader = [&](int fd) -> Task<void> {
    (void)co_await ReadWait{fd};
    rounds_when_io_woke = yielder_rounds_done;
  };
  for (int i = 0; i < kYielders; ++i) (void)scheduler().spawn(yielder());
  (void)scheduler().spawn(reader(pipe.read_end.get()));
  scheduler().run();
  // The readiness completion was reaped at the first poll, long before the
  // 100,000 yields were done: no yielder had finished when the reader ran.
  EXPECT_EQ(rounds_when_io_woke, 0);
  // And the loop polled at least once per max_resumes_between_polls resumes.
  EXPECT_GE(scheduler().stats().polls, static_cast<std::uint64_t>(kYielders * kRounds / 64));
}

TEST_P(FairnessTest, AnExternalPromiseWakesASchedulerWaitingInTheKernel) {
  ExternalPromise<int> promise;
  auto waiter = [](ExternalFuture<int> future) -> Task<int> { co_return co_await std::move(future); };
  auto handle = scheduler().spawn(waiter(promise.future()));
  std::thread completer([&] {
    std::this_thread::sleep_for(50ms);  // the scheduler is asleep in io_uring_enter by now
    promise.set_value(17);
  });
  const auto started = std::chrono::steady_clock::now();
  scheduler().run();
  completer.join();
  EXPECT_EQ(handle.take_result(), 17);
  EXPECT_LT(std::chrono::steady_clock::now() - started, 2s);
}

}  // namespace
}  // namespace tiffany
