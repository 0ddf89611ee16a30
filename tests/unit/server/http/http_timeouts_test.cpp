// HttpConnection timeouts on virtual time: idle keep-alive, slow headers
// (slowloris), stalled bodies, handlers that take too long, peers that do
// not read. Exact, and nothing really sleeps.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <tiffany/coro/manual_clock.hpp>
#include <tiffany/coro/syscalls.hpp>
#include <tiffany/handlers/handler.hpp>
#include <tiffany/handlers/server_stats.hpp>

#include "server/http/http_connection.hpp"
#include "server/http/http_protocol.hpp"
#include "server/transport/serve_stream.hpp"
#include "support/timed_peer_stream.hpp"

namespace tiffany::http {
namespace {

using namespace std::chrono_literals;
using tiffany::testing::TimedPeerStream;

class Slow final : public Handler {
 public:
  Task<void> handle(Request&, Response& response) override {
    co_await Sleep{5s};
    response.body = "slow";
  }
};

class Quick final : public Handler {
 public:
  Task<void> handle(Request&, Response& response) override {
    response.body = "ok";
    co_return;
  }
};

class HttpTimeoutsTest : public ::testing::Test {
 protected:
  HttpTimeoutsTest() {
    site_.router.add({}, "/", std::make_shared<Quick>());
    site_.router.add({}, "/slow", std::make_shared<Slow>());
    site_.timeouts = HttpTimeouts{10s, 20s, 5s, 30s, 0ms};
  }

  // Serves one connection; returns when it closed, at what virtual time.
  std::chrono::milliseconds serve(TimedPeerStream& stream) {
    auto body = [](TimedPeerStream& s, const HttpSite& site) -> Task<void> {
      HttpProtocol protocol(site);
      co_await serve_stream(protocol, s, "127.0.0.1:1", nullptr);
    };
    const auto start = clock_.now();
    auto handle = scheduler_.spawn(body(stream, site_));
    scheduler_.run();
    handle.take_result();
    return std::chrono::duration_cast<std::chrono::milliseconds>(clock_.now() - start);
  }

  ManualClock clock_;
  Scheduler scheduler_{SchedulerOptions{.clock = &clock_}};
  HttpSite site_;
};

TEST_F(HttpTimeoutsTest, AnIdleKeepAliveConnectionIsClosedQuietly) {
  TimedPeerStream stream({{0ms, "GET / HTTP/1.1\r\nHost: t\r\n\r\n"}}, false);
  EXPECT_EQ(serve(stream), 5000ms);  // keep-alive timeout after the response
  EXPECT_NE(stream.written.find("200 OK"), std::string::npos);
  EXPECT_EQ(stream.written.find("HTTP/1.1 408"), std::string::npos);  // nothing sent for an idle close
}

TEST_F(HttpTimeoutsTest, SlowHeadersGet408AtTheHeaderTimeoutHoweverTheyTrickle) {
  std::vector<TimedPeerStream::Arrival> slowloris;
  slowloris.push_back({1000ms, "GET / HTTP/1.1\r\nHost: t\r\n"});
  for (int i = 0; i < 60; ++i) slowloris.push_back({1000ms, "X-" + std::to_string(i) + ": y\r\n"});  // a header a second
  TimedPeerStream stream(std::move(slowloris), false);
  EXPECT_EQ(serve(stream), 11000ms);  // the first byte at 1 s, then 10 s for the whole header section
  EXPECT_EQ(stream.written.rfind("HTTP/1.1 408 Request Timeout\r\n", 0), 0u) << stream.written;
  EXPECT_TRUE(stream.finished);
}

TEST_F(HttpTimeoutsTest, HeaderBytesArrivingAsTheHeaderTimeoutFiresStillGetA408) {
  // The deadline cancels the read in the instant its bytes arrive: the bytes
  // are delivered, the header section is still incomplete, and its budget is
  // spent, so the answer is a 408, never a silent close.
  TimedPeerStream stream({{0ms, "GET / HTTP/1.1\r\n"}, {.after = 10000ms, .bytes = "X-A: b\r\n", .in_flight = true}}, false);
  EXPECT_EQ(serve(stream), 10000ms);
  EXPECT_EQ(stream.written.rfind("HTTP/1.1 408 ", 0), 0u) << stream.written;
}

TEST_F(HttpTimeoutsTest, AStalledBodyGets408AtTheBodyTimeout) {
  TimedPeerStream stream({{0ms, "POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 100\r\n\r\nabc"}, {15000ms, "defg"}}, false);
  EXPECT_EQ(serve(stream), 15000ms + 20000ms);  // progress at 15 s resets the per-read body timeout
  EXPECT_EQ(stream.written.rfind("HTTP/1.1 408", 0), 0u) << stream.written;
}

TEST_F(HttpTimeoutsTest, ABodySentAByteAtATimeGets408AtTheTotalBodyTimeout) {
  site_.timeouts.body_total = 3000ms;
  std::vector<TimedPeerStream::Arrival> trickle;
  trickle.push_back({0ms, "POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 100\r\n\r\n"});
  for (int i = 0; i < 100; ++i) trickle.push_back({110ms, "x"});  // each well within the per-read body_ms
  TimedPeerStream stream(std::move(trickle), false);
  EXPECT_EQ(serve(stream), 3000ms);  // one budget from the end of the header section, however the body trickles
  EXPECT_EQ(stream.written.rfind("HTTP/1.1 408 Request Timeout\r\n", 0), 0u) << stream.written;
}

TEST_F(HttpTimeoutsTest, EachRequestOfAConnectionGetsABodyBudgetOfItsOwn) {
  site_.timeouts.body_total = 3000ms;
  // Two bodies of 2 s each, the second request arriving with the end of the
  // first: 4 s in all, but each within its own 3 s.
  const std::string head = "POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\n\r\n";
  TimedPeerStream stream({{0ms, head}, {1000ms, "a"}, {1000ms, "b" + head}, {1000ms, "a"}, {1000ms, "b"}}, false);
  EXPECT_EQ(serve(stream), 2000ms + 2000ms + 5000ms);  // then the keep-alive timeout
  EXPECT_EQ(stream.written.find("HTTP/1.1 408"), std::string::npos) << stream.written;
}

TEST_F(HttpTimeoutsTest, AZeroTotalBodyTimeoutLeavesOnlyThePerReadOne) {
  site_.timeouts.body_total = 0ms;
  std::vector<TimedPeerStream::Arrival> trickle;
  trickle.push_back({0ms, "POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 30\r\nConnection: close\r\n\r\n"});
  for (int i = 0; i < 30; ++i) trickle.push_back({10000ms, "x"});  // 300 s, each read within body_ms
  TimedPeerStream stream(std::move(trickle), false);
  EXPECT_EQ(serve(stream), 300'000ms);
  EXPECT_EQ(stream.written.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << stream.written;
}

TEST_F(HttpTimeoutsTest, AfterA413TheConnectionLingersUntilThePeerFallsSilent) {
  site_.limits.max_body_bytes = 16;
  TimedPeerStream stream({{0ms, "POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 1000\r\n\r\n"}, {500ms, "more body"}}, false);
  EXPECT_EQ(serve(stream), 500ms + 2000ms);  // read and dropped until linger_read of silence
  EXPECT_EQ(stream.written.rfind("HTTP/1.1 413 ", 0), 0u) << stream.written;
  EXPECT_TRUE(stream.finished);
}

TEST_F(HttpTimeoutsTest, WithoutLingeringA413ClosesAtOnce) {
  site_.limits.max_body_bytes = 16;
  site_.timeouts.linger = 0ms;
  TimedPeerStream stream({{0ms, "POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 1000\r\n\r\n"}, {500ms, "more body"}}, false);
  EXPECT_EQ(serve(stream), 0ms);
  EXPECT_EQ(stream.written.rfind("HTTP/1.1 413 ", 0), 0u) << stream.written;
}

TEST_F(HttpTimeoutsTest, AHandlerOverItsDeadlineGets503) {
  site_.timeouts.handler = 1000ms;
  TimedPeerStream stream({{0ms, "GET /slow HTTP/1.1\r\nHost: t\r\n\r\n"}}, false);
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(serve(stream), 1000ms);
  const std::string log = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(stream.written.rfind("HTTP/1.1 503 Service Unavailable\r\n", 0), 0u) << stream.written;
  EXPECT_NE(log.find("timed out on GET /slow after 1000 ms"), std::string::npos) << log;
}

TEST_F(HttpTimeoutsTest, WithoutAHandlerDeadlineSlowHandlersFinish) {
  TimedPeerStream stream({{0ms, "GET /slow HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"}}, false);
  EXPECT_EQ(serve(stream), 5000ms);
  EXPECT_NE(stream.written.find("\r\n\r\nslow"), std::string::npos);
}

TEST_F(HttpTimeoutsTest, APeerThatDoesNotReadIsDroppedAtTheWriteTimeout) {
  TimedPeerStream stream({{0ms, "GET / HTTP/1.1\r\nHost: t\r\n\r\n"}}, true);
  EXPECT_EQ(serve(stream), 30000ms);
}

TEST_F(HttpTimeoutsTest, EachTimeoutIsCountedOnceUnderItsStage) {
  site_.timeouts.handler = 1000ms;
  const auto serve_counting = [&](std::vector<TimedPeerStream::Arrival> arrivals, bool writes_hang, Stat stage) {
    const StatTotals before = stat_totals();
    TimedPeerStream stream(std::move(arrivals), writes_hang);
    ::testing::internal::CaptureStderr();
    serve(stream);
    (void)::testing::internal::GetCapturedStderr();
    const StatTotals after = stat_totals();
    for (const Stat other : {Stat::timeouts_header, Stat::timeouts_body, Stat::timeouts_write, Stat::timeouts_handler,
                             Stat::timeouts_idle, Stat::timeouts_handshake}) {
      EXPECT_EQ(after[other] - before[other], other == stage ? 1 : 0)
          << stat_descriptions()[static_cast<std::size_t>(other)].key << " while expecting "
          << stat_descriptions()[static_cast<std::size_t>(stage)].key;
    }
  };
  serve_counting({{0ms, "GET / HTTP/1.1\r\nHost: a\r\n"}}, false, Stat::timeouts_header);
  serve_counting({{0ms, "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 9\r\n\r\nab"}}, false, Stat::timeouts_body);
  serve_counting({{0ms, "GET / HTTP/1.1\r\nHost: a\r\n\r\n"}}, true, Stat::timeouts_write);
  serve_counting({{0ms, "GET /slow HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"}}, false, Stat::timeouts_handler);
  serve_counting({{0ms, "GET / HTTP/1.1\r\nHost: a\r\n\r\n"}}, false, Stat::timeouts_idle);  // the keep-alive wait
}

}  // namespace
}  // namespace tiffany::http
