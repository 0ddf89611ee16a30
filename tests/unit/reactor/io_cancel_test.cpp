// Destroying a task with an operation in flight cancels the operation, so a
// late completion never writes into freed memory (run under ASan to prove it).
#include <sys/socket.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

#include <tiffany/coro/syscalls.hpp>
#include <tiffany/reactor/recv.hpp>
#include <tiffany/reactor/unique_fd.hpp>

#include "reactor_fixture.hpp"

namespace tiffany {
namespace {

// Owns only the reactor: each test builds (and destroys) its own scheduler.
class IoCancel : public ::testing::TestWithParam<BackendChoice> {
 protected:
  void SetUp() override {
    try {
      reactor = make_reactor(GetParam()).reactor;
    } catch (const std::system_error& e) {
      GTEST_SKIP() << "backend unavailable here: " << e.what();
    }
  }
  std::unique_ptr<Reactor> reactor;
};
INSTANTIATE_TEST_SUITE_P(Backends, IoCancel, all_backends(), backend_name);

TEST_P(IoCancel, DestroyingATaskBlockedInRecvCancelsTheReceive) {
  int fds[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
  UniqueFd ours(fds[0]), theirs(fds[1]);
  bool resumed = false;
  {
    Scheduler scheduler(reactor.get());
    auto receiver = [](int fd, bool& after) -> Task<void> {
      char buffer[4096];  // in the frame that is about to be freed
      (void)co_await Recv{fd, buffer, sizeof buffer};
      after = true;
    };
    auto stopper = []() -> Task<void> {
      co_await Yield{};
      Scheduler::current().stop();
    };
    (void)scheduler.spawn(receiver(ours.get(), resumed));
    (void)scheduler.spawn(stopper());
    scheduler.run();
    EXPECT_TRUE(reactor->has_pending());
  }  // the receiver's frame is destroyed here, with its Recv in flight
  EXPECT_FALSE(reactor->has_pending());
  // Data arriving now must go nowhere: the receive was canceled.
  ASSERT_EQ(::send(theirs.get(), "late", 4, 0), 4);
  reactor->poll(std::chrono::milliseconds(10));
  EXPECT_FALSE(resumed);
  char buffer[8];
  EXPECT_EQ(::recv(ours.get(), buffer, sizeof buffer, MSG_DONTWAIT), 4);  // still in the socket
}

TEST_P(IoCancel, CancelingATaskBlockedInRecvDeliversTaskCanceledOnceTheKernelLetsGo) {
  int fds[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
  UniqueFd ours(fds[0]), theirs(fds[1]);
  std::string outcome = "not finished";
  {
    Scheduler scheduler(reactor.get());
    auto receiver = [](int fd, std::string& out) -> Task<void> {
      std::vector<char> buffer(4096);  // the kernel would write here if the recv were still live
      try {
        const IoResult got = co_await Recv{fd, buffer.data(), buffer.size()};
        out = "received " + std::to_string(got.value());
      } catch (const TaskCanceled&) {
        out = "canceled";
        throw;
      }
    };
    auto handle = scheduler.spawn(receiver(ours.get(), outcome));
    auto canceler = [](JoinHandle<void>& target) -> Task<void> {
      co_await Yield{};  // the receiver is parked in Recv now
      target.cancel();
    };
    (void)scheduler.spawn(canceler(handle));
    scheduler.run();
    EXPECT_EQ(scheduler.state(handle.tid()), TaskState::canceled);
    EXPECT_FALSE(reactor->has_pending());
  }
  EXPECT_EQ(outcome, "canceled");
  ASSERT_EQ(::send(theirs.get(), "late", 4, 0), 4);  // nobody is receiving any more
  char buffer[8];
  EXPECT_EQ(::recv(ours.get(), buffer, sizeof buffer, MSG_DONTWAIT), 4);
}

TEST_P(IoCancel, AReceiveThatCompletedBeforeTheCancelIsDeliveredAndTheCancelComesNext) {
  int fds[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
  UniqueFd ours(fds[0]), theirs(fds[1]);
  std::string log;
  {
    Scheduler scheduler(reactor.get());
    auto receiver = [](int fd, std::string& out) -> Task<void> {
      char buffer[16];
      const IoResult got = co_await Recv{fd, buffer, sizeof buffer};
      out = "got " + std::string(buffer, got.bytes());  // not lost to the cancel
      try {
        co_await Yield{};
      } catch (const TaskCanceled&) {
        out += ", then canceled";
        throw;
      }
    };
    auto handle = scheduler.spawn(receiver(ours.get(), log));
    scheduler.run_until_idle();  // parked in Recv
    ASSERT_EQ(::send(theirs.get(), "hello", 5, 0), 5);
    auto canceler = [](JoinHandle<void>& target) -> Task<void> {
      target.cancel();
      co_return;
    };
    (void)scheduler.spawn(canceler(handle));
    // The next step reaps the receive (the receiver becomes ready behind the
    // canceler), then runs the canceler, which cancels a completed receive.
    scheduler.run_until_idle();
    EXPECT_EQ(scheduler.state(handle.tid()), TaskState::canceled);
  }
  EXPECT_EQ(log, "got hello, then canceled");
}

TEST_P(IoCancel, AResetConnectionNobodyWaitsOnDoesNotWakeEveryPoll) {
  int fds[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
  UniqueFd ours(fds[0]), theirs(fds[1]);
  Scheduler scheduler(reactor.get());
  auto once = [](int fd) -> Task<void> {
    char buffer[8];
    (void)co_await Recv{fd, buffer, sizeof buffer};  // then nobody waits on the fd
    co_await Sleep{std::chrono::milliseconds(200)};
  };
  (void)scheduler.spawn(once(ours.get()));
  scheduler.run_until_idle();
  ASSERT_EQ(::send(theirs.get(), "x", 1, 0), 1);
  theirs.reset();  // the peer goes away while nothing is parked on the fd
  scheduler.run();
  EXPECT_LT(scheduler.stats().polls, 20u) << "the hung-up fd woke the loop again and again";
}

}  // namespace
}  // namespace tiffany
