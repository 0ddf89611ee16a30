// KeepAliveHold through PlainTransport on every backend: a busy connection's
// bursts run in one task; a quiet one parks and times out from when it went
// quiet; the budget sends the rest to the park; a drain closes a waiting one.
#include "server/transport/keep_alive_hold.hpp"

#include <poll.h>
#include <sys/socket.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <tiffany/coro/get_tid.hpp>
#include <tiffany/coro/sleep.hpp>
#include <tiffany/handlers/server_stats.hpp>
#include <tiffany/reactor/recv.hpp>
#include <tiffany/reactor/send.hpp>

#include "server/transport/connection_tracker.hpp"
#include "server/transport/plain_transport.hpp"
#include "support/socket_pair.hpp"
#include "unit/reactor/reactor_fixture.hpp"

namespace tiffany {
namespace {

using namespace std::chrono_literals;
using testing::SocketPair;

using KeepAliveHoldTest = ReactorTest;
INSTANTIATE_TEST_SUITE_P(Backends, KeepAliveHoldTest, all_backends(), backend_name);

/// One burst the protocol served: its bytes, and the task that served them.
struct Burst {
  std::string bytes;
  TaskId task;
};

/// Answers each burst "ok" and stays open, waiting for the next in its task
/// when the connection's hold lets it (as HTTP/1.1 and echo do); records
/// every burst.
class RecordingProtocol final : public StreamProtocol {
 public:
  RecordingProtocol(std::vector<Burst>& bursts, std::chrono::milliseconds idle_timeout)
      : bursts_(bursts), idle_timeout_(idle_timeout) {}
  Task<AfterBurst> serve(ByteStream& stream, ConnectionContext& context, ReadLease first) override {
    const TaskId me = co_await GetTid{};
    for (;;) {
      bursts_.push_back(Burst{std::string(first.bytes()), me});
      first.reset();
      const IoResult sent = co_await stream.write("ok", 2);
      if (!sent) co_return AfterBurst::close;
      if (context.hold == nullptr || !context.hold->may_wait()) co_return AfterBurst::idle;
      const HeldInput next = co_await context.hold->wait(first);
      if (next == HeldInput::quiet) co_return AfterBurst::idle;
      if (next == HeldInput::closed) co_return AfterBurst::close;
    }
  }
  std::chrono::milliseconds idle_timeout() const noexcept override { return idle_timeout_; }
  const char* name() const noexcept override { return "recording"; }

 private:
  std::vector<Burst>& bursts_;
  std::chrono::milliseconds idle_timeout_;
};

sockaddr_storage some_peer() {
  sockaddr_storage peer{};
  peer.ss_family = AF_INET;
  return peer;
}

/// Sends `request` on `fd` and waits for the "ok" that answers it.
Task<void> ask(int fd, const char* request) {
  const IoResult sent = co_await Send(fd, request, std::char_traits<char>::length(request));
  EXPECT_TRUE(sent);
  char answer[2];
  const IoResult got = co_await Recv(fd, answer, sizeof answer, MSG_WAITALL);
  EXPECT_EQ(got.bytes(), 2u);
}

/// Waits (at most about 10 s) until `tracker` counts no connection.
Task<bool> all_closed(const ConnectionTracker& tracker) {
  for (int turns = 0; turns < 10000 && tracker.size() > 0; ++turns) co_await Sleep{1ms};
  co_return tracker.size() == 0;
}

TEST_P(KeepAliveHoldTest, ABusyConnectionsBurstsRunInOneTaskOnceItIsBusy) {
  SocketPair pair;
  ConnectionTracker tracker(10);
  std::vector<Burst> bursts;
  // Why an hour: every input counts as busy however slowly this test runs.
  PlainTransport transport(std::make_unique<RecordingProtocol>(bursts, 1h), &tracker, 1h);
  bool closed = false;
  run([&]() -> Task<void> {
    co_await transport.serve(std::move(pair.b), some_peer(), ConnectionTracker::Slot(tracker));
    for (const char* request : {"r0", "r1", "r2", "r3", "r4"}) co_await ask(pair.a.get(), request);
    pair.a.reset();  // the waiting task sees the peer close, and closes the connection
    closed = co_await all_closed(tracker);
    transport.close_idle();
    Scheduler::current().stop();
  });
  EXPECT_TRUE(closed);
  ASSERT_EQ(bursts.size(), 5u);
  // The first input came to a connection never served: the park's; from the second on, one task waits.
  EXPECT_NE(bursts[0].task, bursts[1].task);
  for (std::size_t i = 2; i < bursts.size(); ++i) EXPECT_EQ(bursts[i].task, bursts[1].task) << bursts[i].bytes;
}

TEST_P(KeepAliveHoldTest, AWaitingConnectionThatGoesQuietParksAndClosesAtTheIdleTimeout) {
  SocketPair pair;
  ConnectionTracker tracker(10);
  std::vector<Burst> bursts;
  // The window is the idle timeout (shorter than the hour asked): the wait in
  // the task takes it all, so the park closes the connection at once.
  PlainTransport transport(std::make_unique<RecordingProtocol>(bursts, 300ms), &tracker, 1h);
  const StatTotals before = stat_totals();
  bool closed = false;
  run([&]() -> Task<void> {
    co_await transport.serve(std::move(pair.b), some_peer(), ConnectionTracker::Slot(tracker));
    co_await ask(pair.a.get(), "r0");
    co_await ask(pair.a.get(), "r1");  // busy (unless this machine took 300 ms): its task waits
    closed = co_await all_closed(tracker);
    transport.close_idle();
    Scheduler::current().stop();
  });
  EXPECT_TRUE(closed);
  EXPECT_EQ(bursts.size(), 2u);
  EXPECT_EQ(stat_totals()[Stat::timeouts_idle] - before[Stat::timeouts_idle], 1);
  EXPECT_EQ(stat_totals()[Stat::connections_idle], before[Stat::connections_idle]);
  char byte;
  EXPECT_EQ(::recv(pair.a.get(), &byte, 1, MSG_DONTWAIT), 0);  // closed, not reset
}

TEST_P(KeepAliveHoldTest, PastItsBudgetABusyConnectionParks) {
  SocketPair first;
  SocketPair second;
  ConnectionTracker tracker(10);
  std::vector<Burst> bursts;
  PlainTransport transport(std::make_unique<RecordingProtocol>(bursts, 1h), &tracker, 1h, 1);
  run([&]() -> Task<void> {
    co_await transport.serve(std::move(first.b), some_peer(), ConnectionTracker::Slot(tracker));
    co_await transport.serve(std::move(second.b), some_peer(), ConnectionTracker::Slot(tracker));
    co_await ask(first.a.get(), "a0");
    co_await ask(second.a.get(), "b0");
    co_await ask(first.a.get(), "a1");   // busy, and room for one: its task waits
    co_await ask(second.a.get(), "b1");  // busy, no room: parked after its burst
    co_await ask(first.a.get(), "a2");
    co_await ask(second.a.get(), "b2");
    first.a.reset();
    second.a.reset();
    (void)co_await all_closed(tracker);
    transport.close_idle();
    Scheduler::current().stop();
  });
  ASSERT_EQ(bursts.size(), 6u);
  EXPECT_EQ(bursts[4].bytes, "a2");
  EXPECT_EQ(bursts[4].task, bursts[2].task);  // a1 and a2: one task
  EXPECT_EQ(bursts[5].bytes, "b2");
  EXPECT_NE(bursts[5].task, bursts[3].task);  // b1 and b2: each its own
  EXPECT_EQ(tracker.size(), 0u);
}

TEST_P(KeepAliveHoldTest, ADrainClosesAWaitingConnectionAfterItsGraceCountedAsDrained) {
  SocketPair pair;
  ConnectionTracker tracker(10);
  std::vector<Burst> bursts;
  PlainTransport transport(std::make_unique<RecordingProtocol>(bursts, 1h), &tracker, 1h);
  const StatTotals before = stat_totals();
  bool drained = false;
  run([&]() -> Task<void> {
    co_await transport.serve(std::move(pair.b), some_peer(), ConnectionTracker::Slot(tracker));
    co_await ask(pair.a.get(), "r0");
    co_await ask(pair.a.get(), "r1");  // its task now waits, for up to the hour
    tracker.drain(50ms, [&] { drained = true; });
    for (int turns = 0; turns < 10000 && !drained; ++turns) co_await Sleep{1ms};
    transport.close_idle();
    Scheduler::current().stop();  // the park's reaper sleeps for the hour
  });
  EXPECT_TRUE(drained);
  EXPECT_EQ(stat_totals()[Stat::closed_by_drain] - before[Stat::closed_by_drain], 1);
  EXPECT_EQ(stat_totals()[Stat::timeouts_idle] - before[Stat::timeouts_idle], 0);
  char byte;
  EXPECT_EQ(::recv(pair.a.get(), &byte, 1, MSG_DONTWAIT), 0);
}

}  // namespace
}  // namespace tiffany
