// HttpConnection's streamed request bodies on virtual time: back-pressure,
// 100-continue on the first read, timeouts, bad framing, the unread rest.
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
#include "server/transport/connection_tracker.hpp"
#include "server/transport/serve_stream.hpp"
#include "support/timed_peer_stream.hpp"

namespace tiffany::http {
namespace {

using namespace std::chrono_literals;
using tiffany::testing::TimedPeerStream;

// Reads the body a piece at a time, `pause` between reads, optionally after
// `before_first`; answers the pieces and how the body ended.
class Reader final : public Handler {
 public:
  Reader(std::chrono::milliseconds pause, std::chrono::milliseconds before_first = 0ms)
      : pause_(pause), before_first_(before_first) {}
  bool streams_request_body() const noexcept override { return true; }
  Task<void> handle(Request& request, Response& response) override {
    if (before_first_.count() > 0) co_await Sleep{before_first_};
    std::string seen;
    BodyChunk chunk;
    for (;;) {
      chunk = co_await request.body_reader().read();
      if (!chunk) break;
      seen += "[" + std::string(chunk.bytes) + "]";
      if (pause_.count() > 0) co_await Sleep{pause_};
    }
    last_status = chunk.status;
    response.body = seen;
  }
  BodyStatus last_status = BodyStatus::data;

 private:
  std::chrono::milliseconds pause_;
  std::chrono::milliseconds before_first_;
};

// Streams, but answers without reading.
class Refuser final : public Handler {
 public:
  bool streams_request_body() const noexcept override { return true; }
  Task<void> handle(Request&, Response& response) override {
    response.status = 403;
    response.body = "no";
    co_return;
  }
};

// A whole-body handler: echoes the body it was given.
class Whole final : public Handler {
 public:
  Task<void> handle(Request& request, Response& response) override {
    response.body = "whole:" + request.body;
    co_return;
  }
};

class StreamedBodyTest : public ::testing::Test {
 protected:
  StreamedBodyTest() {
    site_.router.add({}, "/read", reader_);
    site_.router.add({}, "/slow", slow_reader_);
    site_.router.add({}, "/refuse", std::make_shared<Refuser>());
    site_.router.add({}, "/whole", std::make_shared<Whole>());
    site_.timeouts = HttpTimeouts{10s, 20s, 5s, 30s, 0ms};
    site_.timeouts.linger = 0ms;
  }

  // Serves one connection; returns when it closed, at what virtual time.
  std::chrono::milliseconds serve(TimedPeerStream& stream) {
    auto body = [](TimedPeerStream& s, const HttpSite& site, std::uint64_t& lookups) -> Task<void> {
      HttpProtocol protocol(site);
      co_await serve_stream(protocol, s, "127.0.0.1:1", nullptr);
      lookups = protocol.site().router.lookups();  // the protocol's copy of the site routes
    };
    const auto start = clock_.now();
    start_ = start;
    auto handle = scheduler_.spawn(body(stream, site_, lookups_));
    scheduler_.run();
    handle.take_result();
    return std::chrono::duration_cast<std::chrono::milliseconds>(clock_.now() - start);
  }
  std::chrono::milliseconds at(Scheduler::Clock::time_point when) const {
    return std::chrono::duration_cast<std::chrono::milliseconds>(when - start_);
  }

  ManualClock clock_;
  Scheduler scheduler_{SchedulerOptions{.clock = &clock_}};
  Scheduler::Clock::time_point start_;
  std::uint64_t lookups_ = 0;  // the router's, for the last connection served
  std::shared_ptr<Reader> reader_ = std::make_shared<Reader>(100ms);
  std::shared_ptr<Reader> slow_reader_ = std::make_shared<Reader>(0ms, 700ms);
  HttpSite site_;
};

TEST_F(StreamedBodyTest, TheSocketIsReadOnlyWhenTheHandlerAsks) {
  TimedPeerStream stream({{0ms, "POST /read HTTP/1.1\r\nHost: t\r\nContent-Length: 9\r\n\r\nabc"}, {0ms, "def"}, {0ms, "ghi"}});
  serve(stream);
  EXPECT_NE(stream.written.find("[abc][def][ghi]"), std::string::npos) << stream.written;
  ASSERT_GE(stream.read_at.size(), 3u);
  // The handler waits 100 ms after each piece before asking for the next: so does the socket.
  EXPECT_EQ(at(stream.read_at[1]), 100ms);
  EXPECT_EQ(at(stream.read_at[2]), 200ms);
  EXPECT_EQ(reader_->last_status, BodyStatus::end);
}

// The routing at a body's header section (does this route stream it?) is the request's only one.
TEST_F(StreamedBodyTest, ARequestWithABodyIsRoutedOnce) {
  TimedPeerStream stream({{0ms,
                           "POST /read HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\n\r\nabc"
                           "POST /whole HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\n\r\nxy"
                           "GET /whole HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"}});
  serve(stream);
  EXPECT_NE(stream.written.find("[abc]"), std::string::npos) << stream.written;
  EXPECT_NE(stream.written.find("whole:xy"), std::string::npos) << stream.written;
  EXPECT_EQ(lookups_, 3u);  // one a request (5 when each body's was routed again)
}

// A request that waits for 100 Continue is routed to decide whether to invite its body, and that routing is its only one.
TEST_F(StreamedBodyTest, ARequestWaitingForContinueIsRoutedOnce) {
  TimedPeerStream stream({{0ms, "POST /whole HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n"},
                          {0ms, "xyGET /whole HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"}});
  serve(stream);
  EXPECT_EQ(stream.written.rfind("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n", 0), 0u) << stream.written;
  EXPECT_NE(stream.written.find("whole:xy"), std::string::npos) << stream.written;
  EXPECT_EQ(lookups_, 2u);  // one a request (3 when the invited one was routed again)
}

TEST_F(StreamedBodyTest, AChunkedBodyIsDecodedAndAPipelinedRequestFollows) {
  TimedPeerStream stream({{0ms, "POST /read HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n"},
                      {0ms, "2\r\nde\r\n0\r\n\r\nGET /whole HTTP/1.1\r\nHost: t\r\n\r\n"}});
  serve(stream);
  const std::size_t first = stream.written.find("[abc][de]");
  const std::size_t second = stream.written.find("whole:");
  EXPECT_NE(first, std::string::npos) << stream.written;
  EXPECT_NE(second, std::string::npos) << stream.written;
  EXPECT_LT(first, second);
}

TEST_F(StreamedBodyTest, AnswersPipelinedBeforeAStreamedBodyGoOutBeforeItsSocketIsRead) {
  TimedPeerStream stream({{0ms,
                       "GET /whole HTTP/1.1\r\nHost: t\r\n\r\n"
                       "POST /read HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\n\r\n"},
                      {0ms, "abc"}});
  serve(stream);
  ASSERT_GE(stream.written_at_read.size(), 2u);
  EXPECT_NE(stream.written_at_read[1].find("whole:"), std::string::npos) << stream.written_at_read[1];
  EXPECT_NE(stream.written.find("[abc]"), std::string::npos) << stream.written;
}

TEST_F(StreamedBodyTest, ContinueIsWrittenOnTheFirstReadNotBefore) {
  TimedPeerStream stream({{0ms, "POST /slow HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n"},
                      {0ms, "xyz"}});
  serve(stream);
  ASSERT_GE(stream.read_at.size(), 2u);
  EXPECT_EQ(at(stream.read_at[1]), 700ms);  // the handler's first read, after its 700 ms of work
  EXPECT_EQ(stream.written_at_read[1], "HTTP/1.1 100 Continue\r\n\r\n");
  EXPECT_EQ(stream.written.rfind("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n", 0), 0u) << stream.written;
  EXPECT_NE(stream.written.find("[xyz]"), std::string::npos);
}

TEST_F(StreamedBodyTest, AHandlerThatAnswersWithoutReadingNeverInvitesTheBodyAndCloses) {
  TimedPeerStream stream({{0ms, "POST /refuse HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n"}});
  serve(stream);
  EXPECT_EQ(stream.written.rfind("HTTP/1.1 403 Forbidden\r\n", 0), 0u) << stream.written;
  EXPECT_NE(stream.written.find("Connection: close"), std::string::npos);
  EXPECT_EQ(stream.written.find("100 Continue"), std::string::npos);
  EXPECT_TRUE(stream.finished);
}

TEST_F(StreamedBodyTest, AnUnreadRestWithinTheBoundIsDroppedAndTheConnectionGoesOn) {
  TimedPeerStream stream({{0ms, "POST /refuse HTTP/1.1\r\nHost: t\r\nContent-Length: 6\r\n\r\nab"},
                      {0ms, "cdef" "GET /whole HTTP/1.1\r\nHost: t\r\n\r\n"}});
  serve(stream);
  EXPECT_EQ(stream.written.rfind("HTTP/1.1 403", 0), 0u) << stream.written;
  EXPECT_EQ(stream.written.find("Connection: close"), std::string::npos) << stream.written;
  EXPECT_NE(stream.written.find("whole:"), std::string::npos) << stream.written;
}

TEST_F(StreamedBodyTest, AnUnreadRestOverTheBoundClosesAfterTheAnswer) {
  site_.limits.max_body_bytes = 8u << 20;
  const std::string length = std::to_string(HttpConnection::kMaxDiscardBytes + 1);
  TimedPeerStream stream({{0ms, "POST /refuse HTTP/1.1\r\nHost: t\r\nContent-Length: " + length + "\r\n\r\nab"}});
  serve(stream);
  EXPECT_EQ(stream.written.rfind("HTTP/1.1 403", 0), 0u) << stream.written;
  EXPECT_NE(stream.written.find("Connection: close"), std::string::npos) << stream.written;
  EXPECT_TRUE(stream.finished);
}

TEST_F(StreamedBodyTest, AStalledStreamedBodyGets408AtTheBodyTimeoutOfARead) {
  TimedPeerStream stream({{0ms, "POST /read HTTP/1.1\r\nHost: t\r\nContent-Length: 9\r\n\r\nabc"}});
  EXPECT_EQ(serve(stream), 100ms + 20000ms);  // the handler asks at 100 ms; the read times out 20 s later
  EXPECT_EQ(stream.written.rfind("HTTP/1.1 408", 0), 0u) << stream.written;
  EXPECT_NE(stream.written.find("Connection: close"), std::string::npos) << stream.written;
  EXPECT_TRUE(stream.finished);
  EXPECT_EQ(reader_->last_status, BodyStatus::timed_out);
}

TEST_F(StreamedBodyTest, BadChunkFramingMidStreamIs400) {
  TimedPeerStream stream({{0ms, "POST /read HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n"},
                      {0ms, "zz\r\n"}});
  serve(stream);
  EXPECT_EQ(stream.written.rfind("HTTP/1.1 400", 0), 0u) << stream.written;
  EXPECT_EQ(reader_->last_status, BodyStatus::bad_framing);
}

TEST_F(StreamedBodyTest, ABodyPastTheLimitMidStreamIs413) {
  site_.limits.max_body_bytes = 4;
  TimedPeerStream stream({{0ms, "POST /read HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n"},
                      {0ms, "3\r\ndef\r\n0\r\n\r\n"}});
  serve(stream);
  EXPECT_EQ(stream.written.rfind("HTTP/1.1 413", 0), 0u) << stream.written;
  EXPECT_EQ(reader_->last_status, BodyStatus::too_large);
}

TEST_F(StreamedBodyTest, ADrainEndsTheDropOfAnUnreadBodyAfterTheIdleGrace) {
  ConnectionTracker tracker(16);
  site_.tracker = &tracker;
  auto drain_at_1s = [](ConnectionTracker& t) -> Task<void> {
    co_await Sleep{1000ms};
    t.drain(100ms, [] {});
  };
  (void)scheduler_.spawn(drain_at_1s(tracker));
  // The handler refuses at once; the rest of the body never comes.
  TimedPeerStream stream({{0ms, "POST /refuse HTTP/1.1\r\nHost: t\r\nContent-Length: 6\r\n\r\nab"}});
  const StatTotals before = stat_totals();
  EXPECT_EQ(serve(stream), 1000ms + 100ms);  // not body_ms (20 s) later
  const StatTotals after = stat_totals();
  EXPECT_EQ(stream.written.rfind("HTTP/1.1 403", 0), 0u) << stream.written;
  EXPECT_EQ(after[Stat::closed_by_drain] - before[Stat::closed_by_drain], 1);
  EXPECT_EQ(after[Stat::timeouts_body] - before[Stat::timeouts_body], 0) << "a drain is not a timeout";
}

TEST_F(StreamedBodyTest, AWholeBodyHandlerBesideStreamingRoutesStillGetsItsBodyWhole) {
  TimedPeerStream stream({{0ms, "POST /whole HTTP/1.1\r\nHost: t\r\nContent-Length: 6\r\n\r\nab"}, {0ms, "cdef"}});
  serve(stream);
  EXPECT_NE(stream.written.find("whole:abcdef"), std::string::npos) << stream.written;
}

}  // namespace
}  // namespace tiffany::http
