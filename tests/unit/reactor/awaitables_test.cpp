// The reactor awaitables on every backend: readiness, socket I/O, timers and
// sleeping in the kernel.
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include <tiffany/coro/syscalls.hpp>
#include <tiffany/reactor/accept.hpp>
#include <tiffany/reactor/connect.hpp>
#include <tiffany/reactor/readiness.hpp>
#include <tiffany/reactor/recv.hpp>
#include <tiffany/reactor/send.hpp>
#include <tiffany/reactor/unique_fd.hpp>

#include "support/loopback_socket.hpp"
#include "support/pipe_ends.hpp"
#include "support/socket_pair.hpp"
#include "reactor_fixture.hpp"

namespace tiffany {
namespace {

using namespace std::chrono_literals;
using Log = std::vector<std::string>;

using testing::Pipe;

using testing::SocketPair;

double thread_cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

using AwaitablesTest = ReactorTest;
INSTANTIATE_TEST_SUITE_P(Backends, AwaitablesTest, all_backends(), backend_name);

TEST_P(AwaitablesTest, ReadWaitOnAPipeWakesOnlyOnceDataIsWritten) {
  Pipe pipe;
  Log log;
  auto reader = [](int fd, Log& out) -> Task<void> {
    const IoResult ready = co_await ReadWait{fd};
    out.push_back(ready && (ready.value() & POLLIN) ? "readable" : "error: " + ready.message());
    char byte = 0;
    out.push_back(::read(fd, &byte, 1) == 1 ? std::string(1, byte) : "nothing to read");
  };
  auto writer = [](int fd, Log& out) -> Task<void> {
    for (int i = 0; i < 5; ++i) co_await Yield{};  // the reader has had turns to (wrongly) wake
    co_await Sleep{20ms};
    out.push_back("writing");
    EXPECT_EQ(::write(fd, "x", 1), 1);
  };
  (void)scheduler().spawn(reader(pipe.read_end.get(), log));
  (void)scheduler().spawn(writer(pipe.write_end.get(), log));
  scheduler().run();
  EXPECT_EQ(log, (Log{"writing", "readable", "x"}));
}

TEST_P(AwaitablesTest, HangupWaitIgnoresBytesAndWakesWhenThePeerFinishes) {
  SocketPair pair;
  Log log;
  auto watcher = [](int fd, Log& out) -> Task<void> {
    const IoResult ready = co_await HangupWait{fd};
    out.push_back(ready && (ready.value() & POLLRDHUP) ? "hung up" : "error: " + ready.message());
    char byte = 0;
    out.push_back(::recv(fd, &byte, 1, MSG_DONTWAIT) == 1 ? std::string(1, byte) : "nothing to read");
  };
  auto peer = [](int fd, Log& out) -> Task<void> {
    EXPECT_EQ(::send(fd, "x", 1, MSG_NOSIGNAL), 1);  // a pipelined request, say: not a hang-up
    for (int i = 0; i < 5; ++i) co_await Yield{};     // the watcher has had turns to (wrongly) wake
    co_await Sleep{20ms};
    out.push_back("finishing");
    EXPECT_EQ(::shutdown(fd, SHUT_WR), 0);
  };
  (void)scheduler().spawn(watcher(pair.b.get(), log));
  (void)scheduler().spawn(peer(pair.a.get(), log));
  scheduler().run();
  EXPECT_EQ(log, (Log{"finishing", "hung up", "x"}));
}

TEST_P(AwaitablesTest, HangupWaitWakesWhenThePeerResets) {
  UniqueFd client;
  UniqueFd server;
  {
    testing::LoopbackSocket listener(true);
    client.reset(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    ASSERT_EQ(::connect(client.get(), reinterpret_cast<const sockaddr*>(&listener.address), sizeof listener.address), 0);
    server.reset(::accept4(listener.fd.get(), nullptr, nullptr, SOCK_CLOEXEC));
  }
  ASSERT_TRUE(server);
  auto watcher = [](int fd) -> Task<int> { co_return (co_await HangupWait{fd}).value(); };
  auto result = scheduler().spawn(watcher(server.get()));
  auto resetter = [](UniqueFd& fd) -> Task<void> {
    co_await Sleep{5ms};
    const linger abort{1, 0};  // close with RST
    ::setsockopt(fd.get(), SOL_SOCKET, SO_LINGER, &abort, sizeof abort);
    fd.reset();
  };
  (void)scheduler().spawn(resetter(client));
  scheduler().run();
  EXPECT_NE(result.take_result() & (POLLERR | POLLHUP | POLLRDHUP), 0);
}

TEST_P(AwaitablesTest, WriteWaitOnAnEmptyPipeIsReadyAtOnce) {
  Pipe pipe;
  auto waiter = [](int fd) -> Task<int> { co_return (co_await WriteWait{fd}).value(); };
  auto handle = scheduler().spawn(waiter(pipe.write_end.get()));
  scheduler().run();
  EXPECT_TRUE(handle.take_result() & POLLOUT);
}

TEST_P(AwaitablesTest, RecvAndSendMoveBytesOverASocketpair) {
  SocketPair pair;
  auto sender = [](int fd) -> Task<std::size_t> {
    const std::string message = "ping over io_uring";
    co_return (co_await Send{fd, message.data(), message.size()}).bytes();
  };
  auto receiver = [](int fd) -> Task<std::string> {
    char buffer[64];
    const IoResult got = co_await Recv{fd, buffer, sizeof buffer};
    co_return got ? std::string(buffer, got.bytes()) : got.message();
  };
  auto received = scheduler().spawn(receiver(pair.b.get()));
  auto sent = scheduler().spawn(sender(pair.a.get()));
  scheduler().run();
  EXPECT_EQ(sent.take_result(), 18u);
  EXPECT_EQ(received.take_result(), "ping over io_uring");
}

TEST_P(AwaitablesTest, RecvReturnsZeroWhenThePeerCloses) {
  SocketPair pair;
  auto receiver = [](int fd) -> Task<int> {
    char buffer[8];
    co_return (co_await Recv{fd, buffer, sizeof buffer}).value();
  };
  auto closer = [](UniqueFd& fd) -> Task<void> {
    co_await Sleep{5ms};
    fd.reset();
  };
  auto result = scheduler().spawn(receiver(pair.b.get()));
  (void)scheduler().spawn(closer(pair.a));
  scheduler().run();
  EXPECT_EQ(result.take_result(), 0);
}

TEST_P(AwaitablesTest, SendToAClosedPeerIsAnErrorValueNotASignal) {
  SocketPair pair;
  pair.b.reset();
  auto sender = [](int fd) -> Task<int> {
    const char data[] = "lost";
    co_return (co_await Send{fd, data, sizeof data}).error();
  };
  auto result = scheduler().spawn(sender(pair.a.get()));
  scheduler().run();
  EXPECT_EQ(result.take_result(), EPIPE);
}

TEST_P(AwaitablesTest, AcceptReturnsAConnectedSocket) {
  testing::LoopbackSocket listening(true);
  ASSERT_TRUE(listening.fd);
  const int listener = listening.fd.get();
  const sockaddr_in address = listening.address;

  auto acceptor = [](int fd) -> Task<std::string> {
    const IoResult accepted = co_await Accept{fd};
    if (!accepted) co_return accepted.message();
    UniqueFd connection(accepted.value());
    char buffer[16];
    const IoResult got = co_await Recv{connection.get(), buffer, sizeof buffer};
    co_return std::string(buffer, got.bytes());
  };
  auto result = scheduler().spawn(acceptor(listener));
  std::thread client([address] {
    UniqueFd fd(::socket(AF_INET, SOCK_STREAM, 0));
    ASSERT_EQ(::connect(fd.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address), 0);
    ASSERT_EQ(::send(fd.get(), "hello", 5, 0), 5);
  });
  scheduler().run();
  client.join();
  EXPECT_EQ(result.take_result(), "hello");
}

TEST_P(AwaitablesTest, ConnectReachesAListenerAcceptedOnTheSameRing) {
  testing::LoopbackSocket listening(true);
  ASSERT_TRUE(listening.fd);
  const int listener = listening.fd.get();
  const sockaddr_in address = listening.address;

  auto server = [](int fd) -> Task<std::string> {
    const IoResult accepted = co_await Accept{fd};
    UniqueFd connection(accepted.value());
    char buffer[16];
    const IoResult got = co_await Recv{connection.get(), buffer, sizeof buffer};
    co_return std::string(buffer, got.bytes());
  };
  auto client = [](sockaddr_in to) -> Task<int> {
    UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    const IoResult connected = co_await Connect{fd.get(), reinterpret_cast<const sockaddr*>(&to), sizeof to};
    if (!connected) co_return connected.error();
    co_return (co_await Send{fd.get(), "over the ring", 13}).error();
  };
  auto received = scheduler().spawn(server(listener));
  auto client_error = scheduler().spawn(client(address));
  scheduler().run();
  EXPECT_EQ(client_error.take_result(), 0);
  EXPECT_EQ(received.take_result(), "over the ring");
}

TEST_P(AwaitablesTest, ConnectToAClosedPortIsRefused) {
  testing::LoopbackSocket bound_only(false);  // owns a port nobody listens on
  ASSERT_TRUE(bound_only.fd);
  const sockaddr_in address = bound_only.address;
  auto client = [](sockaddr_in to) -> Task<int> {
    UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    co_return (co_await Connect{fd.get(), reinterpret_cast<const sockaddr*>(&to), sizeof to}).error();
  };
  auto error = scheduler().spawn(client(address));
  scheduler().run();
  EXPECT_EQ(error.take_result(), ECONNREFUSED);
}

TEST_P(AwaitablesTest, SleepsWakeInDeadlineOrder) {
  Log log;
  auto sleeper = [](std::string name, std::chrono::milliseconds d, Log& out) -> Task<void> {
    co_await Sleep{d};
    out.push_back(name);
  };
  (void)scheduler().spawn(sleeper("30", 30ms, log));
  (void)scheduler().spawn(sleeper("10", 10ms, log));
  (void)scheduler().spawn(sleeper("20", 20ms, log));
  scheduler().run();
  EXPECT_EQ(log, (Log{"10", "20", "30"}));
}

TEST_P(AwaitablesTest, ASchedulerWithOnlyBlockedTasksSleepsInTheKernel) {
  Pipe pipe;
  auto reader = [](int fd) -> Task<bool> { co_return static_cast<bool>(co_await ReadWait{fd}); };
  auto sleeper = []() -> Task<void> { co_await Sleep{300ms}; };
  auto woke = scheduler().spawn(reader(pipe.read_end.get()));
  (void)scheduler().spawn(sleeper());
  std::thread writer([fd = pipe.write_end.get()] {
    std::this_thread::sleep_for(300ms);
    EXPECT_EQ(::write(fd, "x", 1), 1);
  });
  const double cpu_before = thread_cpu_ms();
  const auto wall_before = std::chrono::steady_clock::now();
  scheduler().run();
  const double cpu_ms = thread_cpu_ms() - cpu_before;
  writer.join();
  EXPECT_TRUE(woke.take_result());
  EXPECT_GE(std::chrono::steady_clock::now() - wall_before, 300ms);
  EXPECT_LT(cpu_ms, 50.0) << "the scheduler spun instead of waiting in io_uring_enter";
}

}  // namespace
}  // namespace tiffany
