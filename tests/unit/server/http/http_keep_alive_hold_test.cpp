// HTTP/1.1 over PlainTransport on virtual time (epoll, real sockets): a busy
// connection's requests, pipelined ones too, run in one task; a request begun
// after a wait in the task still has its header timeout; a wait that stays
// quiet parks the connection, which closes at the keep-alive timeout counted
// from its last answer; a drain gives a waiting connection its grace (never
// more than its keep-alive timeout), and answers a request that comes during it.
#include <gtest/gtest.h>
#include <sys/socket.h>

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <tiffany/coro/get_tid.hpp>
#include <tiffany/coro/manual_clock.hpp>
#include <tiffany/coro/scheduler.hpp>
#include <tiffany/coro/sleep.hpp>
#include <tiffany/handlers/handler.hpp>
#include <tiffany/handlers/server_stats.hpp>
#include <tiffany/net/socket_stream.hpp>
#include <tiffany/reactor/unique_fd.hpp>

#include "reactor/engine/reactor_factory.hpp"
#include "server/http/http_protocol.hpp"
#include "server/transport/connection_tracker.hpp"
#include "server/transport/plain_transport.hpp"

namespace tiffany::http {
namespace {

using namespace std::chrono_literals;

/// Answers "ok", and records the task each request ran in.
class WhoServes final : public Handler {
 public:
  explicit WhoServes(std::vector<TaskId>& tasks) noexcept : tasks_(tasks) {}
  Task<void> handle(Request&, Response& response) override {
    tasks_.push_back(co_await GetTid{});
    response.body = "ok";
  }

 private:
  std::vector<TaskId>& tasks_;
};

constexpr std::string_view kRequest = "GET /who HTTP/1.1\r\nHost: t\r\n\r\n";

int count_of(std::string_view text, std::string_view part) {
  int count = 0;
  for (std::size_t at = 0; (at = text.find(part, at)) != std::string_view::npos; at += part.size()) ++count;
  return count;
}

/// Reads from `stream` until `responses` whole "ok" answers (or EOF) came; returns them.
Task<std::string> read_answers(SocketStream& stream, int responses) {
  std::string got;
  char buffer[4096];
  while (count_of(got, "\r\n\r\nok") < responses) {
    const IoResult read = co_await stream.read(buffer, sizeof buffer);
    if (!read || read.bytes() == 0) break;
    got.append(buffer, read.bytes());
  }
  co_return got;
}

/// Reads until EOF; returns what came.
Task<std::string> read_to_end(SocketStream& stream) {
  std::string got;
  char buffer[4096];
  for (;;) {
    const IoResult read = co_await stream.read(buffer, sizeof buffer);
    if (!read || read.bytes() == 0) break;
    got.append(buffer, read.bytes());
  }
  co_return got;
}

class HttpKeepAliveHoldTest : public ::testing::Test {
 protected:
  HttpKeepAliveHoldTest() {
    int fds[2];
    EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
    server_end_.reset(fds[0]);
    client_end_.reset(fds[1]);
    site_.router.add({"GET"}, "/who", std::make_shared<WhoServes>(tasks_));
    site_.timeouts.keepalive = 2s;
    site_.timeouts.header = 1s;
    site_.tracker = &tracker_;
  }

  /// Runs `client` against a PlainTransport serving site_ on `server_end_`,
  /// the hold's window as long as the keep-alive timeout, on virtual time.
  template <class Client>
  void run(Client client) {
    std::unique_ptr<Reactor> reactor = make_reactor(BackendChoice::epoll).reactor;
    Scheduler scheduler(SchedulerOptions{.poller = reactor.get(), .clock = &clock_});
    PlainTransport transport(std::make_unique<HttpProtocol>(site_), &tracker_, 1h);
    auto body = [&]() -> Task<void> {
      co_await transport.serve(std::move(server_end_), sockaddr_storage{}, ConnectionTracker::Slot(tracker_));
      SocketStream stream(client_end_.get());
      co_await client(stream);
      transport.close_idle();
      Scheduler::current().stop();  // the park's reaper and a drain's timers may still sleep
    };
    auto handle = scheduler.spawn(body());
    scheduler.run();
    handle.take_result();
  }

  static Task<void> send(SocketStream& stream, std::string_view bytes) {
    const IoResult sent = co_await stream.write(bytes.data(), bytes.size());
    EXPECT_TRUE(sent);
  }

  /// Two requests, each answered: the second comes to a parked connection at
  /// once, so after its answer the connection's task waits for the next one
  /// (begun by the virtual millisecond after). Returns when it was answered.
  Task<Scheduler::Clock::time_point> make_busy(SocketStream& stream) {
    for (int i = 0; i < 2; ++i) {
      co_await send(stream, kRequest);
      (void)co_await read_answers(stream, 1);
    }
    const auto answered = clock_.now();
    co_await Sleep{1ms};
    co_return answered;
  }

  ManualClock clock_;
  ConnectionTracker tracker_{10};
  HttpSite site_;
  std::vector<TaskId> tasks_;
  UniqueFd server_end_;
  UniqueFd client_end_;
};

TEST_F(HttpKeepAliveHoldTest, ABusyConnectionsRequestsPipelinedOnesTooRunInOneTask) {
  std::string pipelined;
  run([&](SocketStream& stream) -> Task<void> {
    for (int i = 0; i < 3; ++i) {
      co_await send(stream, kRequest);
      (void)co_await read_answers(stream, 1);
    }
    co_await send(stream, std::string(kRequest) + std::string(kRequest));
    pipelined = co_await read_answers(stream, 2);
  });
  EXPECT_EQ(count_of(pipelined, "200 OK"), 2);
  ASSERT_EQ(tasks_.size(), 5u);
  // The first request came to a connection never served (the park's task); the rest to one that waits.
  EXPECT_NE(tasks_[0], tasks_[1]);
  for (std::size_t i = 2; i < tasks_.size(); ++i) EXPECT_EQ(tasks_[i], tasks_[1]) << "request " << i;
}

TEST_F(HttpKeepAliveHoldTest, ARequestBegunAfterAWaitInTheTaskStillHasItsHeaderTimeout) {
  std::string rest;
  Scheduler::Clock::duration took{};
  run([&](SocketStream& stream) -> Task<void> {
    (void)co_await make_busy(stream);  // its task waits now
    const auto began = clock_.now();
    co_await send(stream, "GET /who HTTP/1.1\r\n");  // and never the rest
    rest = co_await read_to_end(stream);
    took = clock_.now() - began;
  });
  EXPECT_NE(rest.find("408"), std::string::npos) << rest;
  EXPECT_EQ(took, site_.timeouts.header);
}

TEST_F(HttpKeepAliveHoldTest, AQuietWaitParksTheConnectionWhichClosesAtTheKeepAliveTimeoutFromItsLastAnswer) {
  const StatTotals before = stat_totals();
  Scheduler::Clock::duration quiet_for{};
  std::string rest = "unread";
  run([&](SocketStream& stream) -> Task<void> {
    const auto answered = co_await make_busy(stream);  // its task waits now, for the whole keep-alive timeout
    rest = co_await read_to_end(stream);
    quiet_for = clock_.now() - answered;
  });
  EXPECT_EQ(rest, "");
  // Not twice as long: the park counts the idle time from the start of the wait in the task.
  EXPECT_EQ(quiet_for, site_.timeouts.keepalive);
  EXPECT_EQ(stat_totals()[Stat::timeouts_idle] - before[Stat::timeouts_idle], 1);
  EXPECT_EQ(stat_totals()[Stat::connections_idle], before[Stat::connections_idle]);
  EXPECT_EQ(tracker_.size(), 0u);
}

TEST_F(HttpKeepAliveHoldTest, ADrainAnswersARequestThatComesInItsGraceThenCloses) {
  const StatTotals before = stat_totals();
  std::string last;
  run([&](SocketStream& stream) -> Task<void> {
    (void)co_await make_busy(stream);  // its task waits now
    tracker_.drain(500ms, [] {});
    co_await Sleep{100ms};
    co_await send(stream, kRequest);  // within the grace: answered, and the connection closes after it
    last = co_await read_to_end(stream);
  });
  EXPECT_EQ(count_of(last, "200 OK"), 1);
  EXPECT_NE(last.find("Connection: close"), std::string::npos) << last;
  EXPECT_EQ(tracker_.size(), 0u);
  EXPECT_EQ(stat_totals()[Stat::timeouts_idle] - before[Stat::timeouts_idle], 0);
}

TEST_F(HttpKeepAliveHoldTest, ADrainClosesAWaitingConnectionAtTheEndOfItsGraceCountedAsDrained) {
  const StatTotals before = stat_totals();
  Scheduler::Clock::duration open_for{};
  run([&](SocketStream& stream) -> Task<void> {
    (void)co_await make_busy(stream);  // its task waits now
    const auto drained = clock_.now();
    tracker_.drain(500ms, [] {});
    (void)co_await read_to_end(stream);
    open_for = clock_.now() - drained;
  });
  EXPECT_EQ(open_for, 500ms);  // the grace, not at once and not the keep-alive timeout
  EXPECT_EQ(stat_totals()[Stat::closed_by_drain] - before[Stat::closed_by_drain], 1);
  EXPECT_EQ(stat_totals()[Stat::timeouts_idle] - before[Stat::timeouts_idle], 0);
  EXPECT_EQ(tracker_.size(), 0u);
}

TEST_F(HttpKeepAliveHoldTest, ADrainWhoseGraceOutlastsTheKeepAliveTimeoutDoesNotLengthenAWait) {
  const StatTotals before = stat_totals();
  run([&](SocketStream& stream) -> Task<void> {
    (void)co_await make_busy(stream);  // its task waits now, for the 2 s keep-alive timeout
    tracker_.drain(5s, [] {});
    (void)co_await read_to_end(stream);
  });
  // Closed for idling too long, as a parked connection would be, not at the
  // end of the drain's grace (which would count it as drained).
  EXPECT_EQ(stat_totals()[Stat::timeouts_idle] - before[Stat::timeouts_idle], 1);
  EXPECT_EQ(stat_totals()[Stat::closed_by_drain] - before[Stat::closed_by_drain], 0);
  EXPECT_EQ(tracker_.size(), 0u);
}

}  // namespace
}  // namespace tiffany::http
