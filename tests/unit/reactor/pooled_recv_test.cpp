// Pooled receives on every backend: bytes arrive in a lent buffer, waiting
// holds none, the io_uring ring running dry falls back to spares, and
// detached operations report to a callback.
#include <sys/socket.h>

#include <cerrno>
#include <memory>
#include <string>
#include <vector>

#include <tiffany/coro/syscalls.hpp>
#include <tiffany/coro/task_canceled.hpp>
#include <tiffany/reactor/recv_pooled.hpp>

#include "reactor/engine/spare_read_buffers.hpp"
#include "reactor/internal/uring_reactor.hpp"
#include "reactor_fixture.hpp"
#include "support/socket_pair.hpp"

namespace tiffany {
namespace {

using namespace std::chrono_literals;
using testing::SocketPair;

using PooledRecvTest = ReactorTest;
INSTANTIATE_TEST_SUITE_P(Backends, PooledRecvTest, all_backends(), backend_name);

void send_text(int fd, const std::string& text) {
  ASSERT_EQ(::send(fd, text.data(), text.size(), MSG_NOSIGNAL), static_cast<ssize_t>(text.size()));
}

TEST_P(PooledRecvTest, BytesArriveInALentBufferThatGoesBackWhenDropped) {
  SocketPair pair;
  auto receiver = [](int fd) -> Task<std::string> {
    ReadLease lease;
    const IoResult got = co_await RecvPooled{fd, lease};
    EXPECT_TRUE(lease.holds_buffer());
    EXPECT_EQ(lease.size(), got.bytes());
    co_return std::string(lease.bytes());
  };
  auto writer = [](int fd) -> Task<void> {
    co_await Sleep{5ms};  // the receiver waits first
    send_text(fd, "GET / HTTP/1.1\r\n\r\n");
  };
  auto received = scheduler().spawn(receiver(pair.b.get()));
  (void)scheduler().spawn(writer(pair.a.get()));
  scheduler().run();
  EXPECT_EQ(received.take_result(), "GET / HTTP/1.1\r\n\r\n");
}

// A receive told to wait for readiness first (IoRequest::poll_first: the
// idle park's, after an answer) still takes bytes already waiting, and
// bytes that come later.
struct PollFirstReceive final : IoOperation {
  explicit PollFirstReceive(int fd) : IoOperation(IoRequest{.kind = IoKind::recv_pooled, .poll_first = true, .fd = fd}) {}
};

TEST_P(PooledRecvTest, AReceiveThatPollsFirstTakesBytesAlreadyThereAndBytesThatComeLater) {
  SocketPair pair;
  auto receiver = [](int fd) -> Task<std::string> {
    PollFirstReceive receive(fd);
    const IoResult got = co_await receive;
    const ReadLease lease = receive.take_buffer();
    if (!got) co_return got.message();
    co_return std::string(lease.bytes());
  };
  send_text(pair.a.get(), "already there");
  auto early = scheduler().spawn(receiver(pair.b.get()));
  scheduler().run();
  EXPECT_EQ(early.take_result(), "already there");

  auto writer = [](int fd) -> Task<void> {
    co_await Sleep{5ms};  // the receiver waits first
    send_text(fd, "later");
  };
  auto late = scheduler().spawn(receiver(pair.b.get()));
  (void)scheduler().spawn(writer(pair.a.get()));
  scheduler().run();
  EXPECT_EQ(late.take_result(), "later");
}

TEST_P(PooledRecvTest, AClosedPeerGivesZeroAndNoBuffer) {
  SocketPair pair;
  pair.a.reset();
  auto receiver = [](int fd) -> Task<bool> {
    ReadLease lease;
    const IoResult got = co_await RecvPooled{fd, lease};
    EXPECT_EQ(got.value(), 0);
    co_return lease.holds_buffer();
  };
  auto holds = scheduler().spawn(receiver(pair.b.get()));
  scheduler().run();
  EXPECT_FALSE(holds.take_result());
}

TEST_P(PooledRecvTest, MoreReceiversThanRingBuffersAllGetTheirOwnBytes) {
  // Why: each receiver keeps its lease until all have one, so with io_uring
  // the provided ring runs dry and the rest must fall back to spares.
  constexpr int kConnections = static_cast<int>(UringReactor::kProvidedBuffers) * 2 + 3;
  std::vector<SocketPair> pairs(kConnections);
  int holding = 0;
  auto receiver = [&holding](int fd) -> Task<std::string> {
    ReadLease lease;
    const IoResult got = co_await RecvPooled{fd, lease};
    if (!got) co_return got.message();
    ++holding;
    while (holding < kConnections) co_await Yield{};
    co_return std::string(lease.bytes());
  };
  std::vector<JoinHandle<std::string>> received;
  for (SocketPair& pair : pairs) received.push_back(scheduler().spawn(receiver(pair.b.get())));
  auto writer = [&pairs]() -> Task<void> {
    co_await Sleep{5ms};
    for (std::size_t i = 0; i < pairs.size(); ++i) send_text(pairs[i].a.get(), "request " + std::to_string(i));
  };
  (void)scheduler().spawn(writer());
  scheduler().run();
  for (std::size_t i = 0; i < received.size(); ++i) EXPECT_EQ(received[i].take_result(), "request " + std::to_string(i));
}

TEST_P(PooledRecvTest, ACanceledWaitThrowsTaskCanceledAndKeepsNoBuffer) {
  SocketPair pair;
  auto receiver = [](int fd) -> Task<std::string> {
    ReadLease lease;
    try {
      co_await RecvPooled{fd, lease};
    } catch (const TaskCanceled&) {
      co_return lease.holds_buffer() ? "canceled, holding a buffer" : "canceled";
    }
    co_return "received";
  };
  auto waiting = scheduler().spawn(receiver(pair.b.get()));
  auto canceler = [](JoinHandle<std::string>& task) -> Task<void> {
    co_await Sleep{5ms};
    task.cancel();
  };
  (void)scheduler().spawn(canceler(waiting));
  scheduler().run();
  EXPECT_EQ(waiting.take_result(), "canceled");
}

// A pooled receive with no task parked on it, as the keep-alive park uses.
struct DetachedRecv final : IoOperation {
  explicit DetachedRecv(int fd) : IoOperation(IoRequest{.kind = IoKind::recv_pooled, .fd = fd}) {}
  int result = 1;
  std::string bytes;
  bool done = false;
  static void on_complete(IoOperation& op, void* context) noexcept {
    auto& self = *static_cast<DetachedRecv*>(context);
    self.result = op.result().value() >= 0 ? op.result().value() : -op.result().error();
    self.bytes = std::string(op.take_buffer().bytes());
    self.done = true;
  }
};

TEST_P(PooledRecvTest, ADetachedReceiveReportsItsBytesToTheCallback) {
  SocketPair pair;
  DetachedRecv recv(pair.b.get());
  auto driver = [&]() -> Task<void> {
    recv.start_detached(&DetachedRecv::on_complete, &recv);
    co_await Sleep{5ms};
    EXPECT_FALSE(recv.done);
    send_text(pair.a.get(), "hello");
    while (!recv.done) co_await Sleep{1ms};
  };
  (void)scheduler().spawn(driver());
  scheduler().run();
  EXPECT_EQ(recv.result, 5);
  EXPECT_EQ(recv.bytes, "hello");
}

TEST_P(PooledRecvTest, ADetachedReceiveCanceledAsynchronouslyReportsECANCELED) {
  SocketPair pair;
  DetachedRecv recv(pair.b.get());
  auto driver = [&]() -> Task<void> {
    recv.start_detached(&DetachedRecv::on_complete, &recv);
    co_await Sleep{2ms};
    reactor().cancel_async(recv);
    while (!recv.done) co_await Sleep{1ms};
  };
  (void)scheduler().spawn(driver());
  scheduler().run();
  EXPECT_EQ(recv.result, -ECANCELED);
  EXPECT_EQ(recv.bytes, "");
}

TEST_P(PooledRecvTest, ADetachedReceiveDestroyedInFlightIsCanceledSilently) {
  SocketPair pair;
  auto recv = std::make_unique<DetachedRecv>(pair.b.get());
  auto driver = [&]() -> Task<void> {
    recv->start_detached(&DetachedRecv::on_complete, recv.get());
    co_await Sleep{2ms};
    recv.reset();  // must not call back into freed memory later
    send_text(pair.a.get(), "late bytes");
    co_await Sleep{5ms};
  };
  (void)scheduler().spawn(driver());
  scheduler().run();
  EXPECT_EQ(recv, nullptr);
}

TEST(SpareReadBuffersTest, ShrinkingFreesAllButTheMostKept) {
  SpareReadBuffers& spares = SpareReadBuffers::for_this_thread();
  spares.shrink_to(0);
  {
    std::vector<ReadLease> leases;
    for (int i = 0; i < 20; ++i) leases.push_back(spares.take());
  }  // all 20 given back
  EXPECT_EQ(spares.kept(), 20u);
  spares.shrink_to(8);
  EXPECT_EQ(spares.kept(), 8u);
  spares.shrink_to(10);  // never grows
  EXPECT_EQ(spares.kept(), 8u);
}

TEST(SpareReadBuffersTest, BuffersAreReusedLastInFirstOut) {
  SpareReadBuffers& spares = SpareReadBuffers::for_this_thread();
  const char* first = nullptr;
  {
    ReadLease lease = spares.take();
    first = lease.data();
    EXPECT_EQ(lease.size(), 0u);
  }
  const std::size_t kept = spares.kept();
  EXPECT_GE(kept, 1u);
  ReadLease again = spares.take();
  EXPECT_EQ(again.data(), first);
  EXPECT_EQ(spares.kept(), kept - 1);
}

}  // namespace
}  // namespace tiffany
