// HttpClient against scripted loopback upstreams, on both reactor backends:
// whole bodies both ways, keep-alive reuse, the per-origin limit, idle
// expiry, the one safe retry, per-stage timeouts, cut and smuggling-shaped
// responses (streamed bodies and lifetimes: http_client_streams_test.cpp).
#include <tiffany/client/http_client.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <tiffany/coro/gather.hpp>
#include <tiffany/coro/sleep.hpp>
#include <tiffany/coro/task_canceled.hpp>

#include "support/loopback_socket.hpp"
#include "unit/client/http_client_fixture.hpp"

namespace tiffany {
namespace {

using namespace std::chrono_literals;
using testing::HttpClientTest;
using testing::ok_reply;
using testing::PiecesSource;
using testing::Result;
using testing::ScriptedUpstream;
using testing::UpstreamReply;
using testing::UpstreamRequest;

INSTANTIATE_TEST_SUITE_P(Backends, HttpClientTest, all_backends(), backend_name);

TEST_P(HttpClientTest, GetsASizedBody) {
  ScriptedUpstream upstream([](const UpstreamRequest&) { return ok_reply("hello"); });
  std::optional<Result> got;
  run([&]() -> Task<void> {
    HttpClient client;
    got.emplace(co_await client.get(upstream.url("/a?b=1")));
  });
  ASSERT_TRUE(got && *got) << got->error().message;
  EXPECT_EQ((*got)->status, 200);
  EXPECT_EQ((*got)->body, "hello");
  ASSERT_EQ(upstream.received().size(), 1u);
  const std::string head = upstream.received()[0].head;
  EXPECT_EQ(head.rfind("GET /a?b=1 HTTP/1.1\r\nHost: 127.0.0.1:", 0), 0u) << head;
}

TEST_P(HttpClientTest, AGivenHostIsSentWhileTheConnectionGoesToTheUrlsOrigin) {
  ScriptedUpstream upstream([](const UpstreamRequest&) { return ok_reply("hi"); });
  std::optional<Result> got;
  run([&]() -> Task<void> {
    HttpClient client;
    ClientRequest request;
    request.url = upstream.url("/h");
    request.host = "app.example:8443";
    got.emplace(co_await client.fetch(std::move(request)));
  });
  ASSERT_TRUE(got && *got) << got->error().message;
  const std::string head = upstream.received().at(0).head;
  EXPECT_EQ(head.rfind("GET /h HTTP/1.1\r\nHost: app.example:8443\r\n", 0), 0u) << head;
}

TEST_P(HttpClientTest, PostsAWholeBodyWithContentLength) {
  ScriptedUpstream upstream([](const UpstreamRequest& request) { return ok_reply("got " + request.body); });
  std::optional<Result> got;
  run([&]() -> Task<void> {
    HttpClient client;
    got.emplace(co_await client.post(upstream.url("/p"), "payload", "text/plain"));
  });
  ASSERT_TRUE(got && *got) << got->error().message;
  EXPECT_EQ((*got)->body, "got payload");
  const UpstreamRequest request = upstream.received().at(0);
  EXPECT_NE(request.head.find("Content-Length: 7\r\n"), std::string::npos) << request.head;
  EXPECT_NE(request.head.find("Content-Type: text/plain\r\n"), std::string::npos) << request.head;
  EXPECT_EQ(request.body, "payload");
}

TEST_P(HttpClientTest, ReadsAChunkedBodyAndItsTrailers) {
  ScriptedUpstream upstream([](const UpstreamRequest&) {
    return UpstreamReply{
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n4\r\ndefg\r\n0\r\nX-Sum: 7\r\n\r\n"};
  });
  std::optional<Result> got;
  run([&]() -> Task<void> {
    HttpClient client;
    got.emplace(co_await client.get(upstream.url()));
  });
  ASSERT_TRUE(got && *got) << got->error().message;
  EXPECT_EQ((*got)->body, "abcdefg");
  EXPECT_EQ((*got)->trailers.get("X-Sum").value_or(""), "7");
}

TEST_P(HttpClientTest, SequentialRequestsReuseOneConnection) {
  ScriptedUpstream upstream([](const UpstreamRequest& request) { return ok_reply(std::to_string(request.index)); });
  std::vector<std::string> bodies;
  std::size_t idle_after = 0;
  run([&]() -> Task<void> {
    HttpClient client;
    for (int i = 0; i < 5; ++i) {
      Result reply = co_await client.get(upstream.url());
      bodies.push_back(reply ? reply->body : reply.error().message);
    }
    idle_after = client.idle_connections();
  });
  EXPECT_EQ(bodies, (std::vector<std::string>{"1", "2", "3", "4", "5"}));
  EXPECT_EQ(upstream.connections(), 1);
  EXPECT_EQ(idle_after, 1u);
}

TEST_P(HttpClientTest, RequestsPastMaxPerOriginWaitForAConnection) {
  ScriptedUpstream upstream([](const UpstreamRequest& request) {
    UpstreamReply reply = ok_reply(std::to_string(request.index));
    reply.delay = 30ms;
    return reply;
  });
  std::vector<std::string> bodies;
  run([&]() -> Task<void> {
    HttpClientOptions options;
    options.pool.max_per_origin = 1;
    HttpClient client(options);
    auto [a, b, c] =
        co_await gather(client.get(upstream.url()), client.get(upstream.url()), client.get(upstream.url()));
    for (Result* reply : {&a, &b, &c}) bodies.push_back(*reply ? (*reply)->body : reply->error().message);
  });
  EXPECT_EQ(upstream.connections(), 1);
  EXPECT_EQ(bodies, (std::vector<std::string>{"1", "2", "3"}));
}

TEST_P(HttpClientTest, AWaitForAFullOriginTimesOut) {
  ScriptedUpstream upstream([](const UpstreamRequest&) {
    UpstreamReply reply = ok_reply("slow");
    reply.delay = 300ms;
    return reply;
  });
  std::optional<Result> first;
  std::optional<Result> second;
  run([&]() -> Task<void> {
    HttpClientOptions options;
    options.pool.max_per_origin = 1;
    options.timeouts.connect = 50ms;
    HttpClient client(options);
    auto [a, b] = co_await gather(client.get(upstream.url()), client.get(upstream.url()));
    first.emplace(std::move(a));
    second.emplace(std::move(b));
  });
  ASSERT_TRUE(*first) << first->error().message;
  ASSERT_FALSE(*second);
  EXPECT_EQ(second->error().kind, ClientErrorKind::timeout);
  EXPECT_EQ(second->error().stage, ClientStage::connect);
}

TEST_P(HttpClientTest, AnIdleConnectionIsClosedAtTheIdleTimeout) {
  ScriptedUpstream upstream([](const UpstreamRequest&) { return ok_reply("x"); });
  std::size_t idle_before = 0;
  std::size_t idle_after = 0;
  run([&]() -> Task<void> {
    HttpClientOptions options;
    options.pool.idle_timeout = 100ms;
    HttpClient client(options);
    Result reply = co_await client.get(upstream.url());
    idle_before = client.idle_connections();
    co_await Sleep(300ms);
    idle_after = client.idle_connections();
  });
  EXPECT_EQ(idle_before, 1u);
  EXPECT_EQ(idle_after, 0u);
  EXPECT_TRUE(upstream.wait_client_closes(1));
}

TEST_P(HttpClientTest, AConnectionTheServerClosedWhileIdleIsNotReused) {
  ScriptedUpstream upstream([](const UpstreamRequest& request) {
    UpstreamReply reply = ok_reply(std::to_string(request.connection));
    reply.close = true;  // says nothing of it: the client must notice the EOF
    return reply;
  });
  // Why the pause: the FIN arrives while the connection idles.
  EXPECT_EQ(get_in_turn(upstream.url(), 2, 20ms), (std::vector<std::string>{"200 1", "200 2"}));
  EXPECT_EQ(upstream.connections(), 2);
  EXPECT_EQ(upstream.requests(), 2);
}

// The race no check can close: the server drops the idle connection just as
// the request arrives on it. The reply for request 2 on connection 1 is a close.
UpstreamReply close_second_request(const UpstreamRequest& request) {
  if (request.connection == 1 && request.index == 2) return UpstreamReply{"", true};
  return ok_reply("c" + std::to_string(request.connection));
}

TEST_P(HttpClientTest, BytesTheServerSentWhileIdleAreNotTakenForTheNextResponse) {
  ScriptedUpstream upstream([](const UpstreamRequest& request) {
    UpstreamReply reply = ok_reply(std::to_string(request.connection));
    if (request.connection == 1) {
      // As a server timing the idle connection out with a 408 of its own.
      reply.stray = "HTTP/1.1 408 Request Timeout\r\nContent-Length: 5\r\n\r\nstray";
      reply.stray_after = std::chrono::milliseconds(10);
    }
    return reply;
  });
  // Why the pause: the stray answer arrives while the connection idles.
  EXPECT_EQ(get_in_turn(upstream.url(), 2, 50ms), (std::vector<std::string>{"200 1", "200 2"}));
  EXPECT_EQ(upstream.connections(), 2);
}

TEST_P(HttpClientTest, AnIdempotentRequestOnAConnectionClosedUnderItIsRetriedOnce) {
  ScriptedUpstream upstream(close_second_request);
  EXPECT_EQ(get_in_turn(upstream.url(), 2, 0ms), (std::vector<std::string>{"200 c1", "200 c2"}));
  EXPECT_EQ(upstream.connections(), 2);
}

TEST_P(HttpClientTest, AStreamedPostIsNotRetried) {
  ScriptedUpstream upstream(close_second_request);
  std::optional<Result> second;
  run([&]() -> Task<void> {
    HttpClient client;
    Result first = co_await client.get(upstream.url());
    PiecesSource source({"ab", "cd"});
    ClientRequest request;
    request.method = "POST";
    request.url = upstream.url();
    request.body_source = &source;
    second.emplace(co_await client.fetch(std::move(request)));
  });
  ASSERT_FALSE(*second);
  EXPECT_EQ(second->error().kind, ClientErrorKind::closed) << second->error().message;
  EXPECT_EQ(upstream.connections(), 1);
}

TEST_P(HttpClientTest, ARefusedConnectIsAConnectError) {
  int port = 0;
  {
    testing::LoopbackSocket bound(false);
    port = bound.port();
  }
  std::optional<Result> got;
  run([&]() -> Task<void> {
    HttpClient client;
    got.emplace(co_await client.get("http://127.0.0.1:" + std::to_string(port) + "/"));
  });
  ASSERT_FALSE(*got);
  EXPECT_EQ(got->error().kind, ClientErrorKind::connect) << got->error().message;
}

TEST_P(HttpClientTest, BadUrlsAreBadRequests) {
  std::vector<ClientErrorKind> kinds;
  run([&]() -> Task<void> {
    HttpClient client;
    for (const char* url : {"ftp://x/", "http:///", "http://a b/", "http://h:99999/", "http://h/a b", "http://[::1/"}) {
      Result reply = co_await client.get(url);
      kinds.push_back(reply ? ClientErrorKind::io : reply.error().kind);
    }
    ClientRequest injected;
    injected.url = "http://127.0.0.1:1/";
    injected.headers.add("X-A", "b\r\nEvil: 1");
    Result reply = co_await client.fetch(std::move(injected));
    kinds.push_back(reply ? ClientErrorKind::io : reply.error().kind);
  });
  EXPECT_EQ(kinds, std::vector<ClientErrorKind>(7, ClientErrorKind::bad_request));
}

TEST_P(HttpClientTest, NoResponseIsAFirstByteTimeout) {
  ScriptedUpstream upstream([](const UpstreamRequest&) { return UpstreamReply{"", false, true}; });
  HttpClientOptions options;
  options.timeouts.first_byte = 100ms;
  const Result got = get_with(options, upstream.url());
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().kind, ClientErrorKind::timeout);
  EXPECT_EQ(got.error().stage, ClientStage::first_byte) << got.error().message;
  EXPECT_TRUE(upstream.wait_client_closes(1));
}

TEST_P(HttpClientTest, ABodyThatStallsIsAReadTimeout) {
  ScriptedUpstream upstream([](const UpstreamRequest&) {
    return UpstreamReply{"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", false, true};
  });
  HttpClientOptions options;
  options.timeouts.read = 100ms;
  const Result got = get_with(options, upstream.url());
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().kind, ClientErrorKind::timeout);
  EXPECT_EQ(got.error().stage, ClientStage::read) << got.error().message;
  EXPECT_TRUE(upstream.wait_client_closes(1));
}

TEST_P(HttpClientTest, TheTotalTimeoutBoundsTheWholeExchange) {
  ScriptedUpstream upstream([](const UpstreamRequest&) { return UpstreamReply{"", false, true}; });
  const auto start = std::chrono::steady_clock::now();
  HttpClientOptions options;
  options.timeouts.total = 150ms;
  const Result got = get_with(options, upstream.url());
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().kind, ClientErrorKind::timeout);
  EXPECT_EQ(got.error().stage, ClientStage::total) << got.error().message;
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);
}

TEST_P(HttpClientTest, ABodyCutByTheServerIsTruncatedNeverComplete) {
  ScriptedUpstream upstream([](const UpstreamRequest&) {
    return UpstreamReply{"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", true};
  });
  std::optional<Result> got;
  run([&]() -> Task<void> {
    HttpClient client;
    got.emplace(co_await client.get(upstream.url()));
  });
  ASSERT_FALSE(*got);
  EXPECT_EQ(got->error().kind, ClientErrorKind::truncated) << got->error().message;
}

// Responses a smuggler would send: each is a protocol error, and the
// connection is never used again.
TEST_P(HttpClientTest, SmugglingShapedResponsesAreProtocolErrorsAndTheConnectionIsDropped) {
  const std::vector<std::string> bad = {
      "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
      "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n",
  };
  for (const std::string& bytes : bad) {
    ScriptedUpstream upstream([&](const UpstreamRequest& request) {
      return request.connection == 1 ? UpstreamReply{bytes} : ok_reply("fine");
    });
    std::optional<Result> first;
    std::optional<Result> second;
    run([&]() -> Task<void> {
      HttpClient client;
      first.emplace(co_await client.get(upstream.url()));
      second.emplace(co_await client.get(upstream.url()));
    });
    ASSERT_FALSE(*first) << bytes;
    EXPECT_EQ(first->error().kind, ClientErrorKind::protocol) << first->error().message;
    ASSERT_TRUE(*second) << second->error().message;
    EXPECT_EQ(upstream.connections(), 2) << bytes;
  }
}

TEST_P(HttpClientTest, AHeadResponseHasNoBodyWhateverItsContentLength) {
  ScriptedUpstream upstream([](const UpstreamRequest& request) {
    return request.index == 1 ? UpstreamReply{"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n"} : ok_reply("next");
  });
  std::optional<Result> head;
  std::optional<Result> next;
  run([&]() -> Task<void> {
    HttpClient client;
    ClientRequest request;
    request.method = "HEAD";
    request.url = upstream.url();
    head.emplace(co_await client.fetch(std::move(request)));
    next.emplace(co_await client.get(upstream.url()));
  });
  ASSERT_TRUE(*head) << head->error().message;
  EXPECT_EQ((*head)->headers.get("Content-Length").value_or(""), "100");
  EXPECT_EQ((*head)->body, "");
  ASSERT_TRUE(*next) << next->error().message;
  EXPECT_EQ((*next)->body, "next");
  EXPECT_EQ(upstream.connections(), 1);
}

}  // namespace
}  // namespace tiffany
