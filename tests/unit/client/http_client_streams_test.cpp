// HttpClient against scripted loopback upstreams, on both reactor backends:
// interim and HEAD responses, streamed bodies both ways, cancellation, and
// the client's and its exchanges' lifetimes.
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

class HttpClientStreamsTest : public HttpClientTest {};
INSTANTIATE_TEST_SUITE_P(Backends, HttpClientStreamsTest, all_backends(), backend_name);

TEST_P(HttpClientStreamsTest, InterimResponsesAreSkipped) {
  ScriptedUpstream upstream([](const UpstreamRequest&) {
    return UpstreamReply{
        "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n"
        "HTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok"};
  });
  std::optional<Result> got;
  run([&]() -> Task<void> {
    HttpClient client;
    got.emplace(co_await client.post(upstream.url(), "x", ""));
  });
  ASSERT_TRUE(*got) << got->error().message;
  EXPECT_EQ((*got)->status, 201);
  EXPECT_EQ((*got)->body, "ok");
}

TEST_P(HttpClientStreamsTest, AStreamedRequestBodyIsChunkedOrSized) {
  ScriptedUpstream upstream([](const UpstreamRequest& request) { return ok_reply(request.body); });
  std::optional<Result> chunked;
  std::optional<Result> sized;
  int reads = 0;
  run([&]() -> Task<void> {
    HttpClient client;
    PiecesSource pieces({"one ", "two ", "three"});
    ClientRequest request;
    request.method = "PUT";
    request.url = upstream.url();
    request.body_source = &pieces;
    chunked.emplace(co_await client.fetch(std::move(request)));
    reads = pieces.reads;
    PiecesSource again({"12", "345"});
    ClientRequest with_length;
    with_length.method = "PUT";
    with_length.url = upstream.url();
    with_length.body_source = &again;
    with_length.body_length = 5;
    sized.emplace(co_await client.fetch(std::move(with_length)));
  });
  ASSERT_TRUE(*chunked) << chunked->error().message;
  EXPECT_EQ((*chunked)->body, "one two three");
  EXPECT_EQ(reads, 4);
  ASSERT_TRUE(*sized) << sized->error().message;
  EXPECT_EQ((*sized)->body, "12345");
  const auto received = upstream.received();
  ASSERT_EQ(received.size(), 2u);
  EXPECT_TRUE(received[0].chunked);
  EXPECT_FALSE(received[1].chunked);
  EXPECT_NE(received[1].head.find("Content-Length: 5\r\n"), std::string::npos) << received[1].head;
}

TEST_P(HttpClientStreamsTest, ABodySourceThatDisagreesWithBodyLengthFails) {
  ScriptedUpstream upstream([](const UpstreamRequest& request) { return ok_reply(request.body); });
  std::optional<Result> got;
  run([&]() -> Task<void> {
    HttpClient client;
    PiecesSource pieces({"123"});
    ClientRequest request;
    request.method = "PUT";
    request.url = upstream.url();
    request.body_source = &pieces;
    request.body_length = 5;
    got.emplace(co_await client.fetch(std::move(request)));
  });
  ASSERT_FALSE(*got);
  EXPECT_EQ(got->error().kind, ClientErrorKind::bad_request) << got->error().message;
}

TEST_P(HttpClientStreamsTest, AResponseIsReadPieceByPiece) {
  ScriptedUpstream upstream([](const UpstreamRequest&) {
    return UpstreamReply{
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nab\r\n"
        "2\r\ncd\r\n0\r\n\r\n"};
  });
  std::string body;
  int pieces = 0;
  bool finished = false;
  std::size_t idle = 0;
  run([&]() -> Task<void> {
    HttpClient client;
    ClientRequest request;
    request.url = upstream.url();
    ClientResult<ClientExchange> opened = co_await client.open(std::move(request));
    if (!opened) co_return;
    for (;;) {
      const ClientBodyChunk chunk = co_await opened->read();
      if (!chunk) break;
      ++pieces;
      body.append(chunk.bytes);
    }
    finished = opened->finished();
    idle = client.idle_connections();
  });
  EXPECT_EQ(body, "abcd");
  EXPECT_GE(pieces, 2);
  EXPECT_TRUE(finished);
  EXPECT_EQ(idle, 1u);
}

TEST_P(HttpClientStreamsTest, AnExchangeDroppedMidBodyClosesTheConnection) {
  ScriptedUpstream upstream([](const UpstreamRequest&) {
    return UpstreamReply{"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nabc", false, true};
  });
  std::size_t idle = 1;
  run([&]() -> Task<void> {
    HttpClient client;
    {
      ClientRequest request;
      request.url = upstream.url();
      ClientResult<ClientExchange> opened = co_await client.open(std::move(request));
      if (!opened) co_return;
      const ClientBodyChunk chunk = co_await opened->read();
      EXPECT_EQ(chunk.bytes, "abc");
    }
    idle = client.idle_connections();
  });
  EXPECT_EQ(idle, 0u);
  EXPECT_TRUE(upstream.wait_client_closes(1));
}

TEST_P(HttpClientStreamsTest, CancelingATaskMidResponseClosesTheUpstreamConnection) {
  ScriptedUpstream upstream([](const UpstreamRequest&) {
    return UpstreamReply{"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nabc", false, true};
  });
  bool canceled = false;
  run([&]() -> Task<void> {
    HttpClient client;
    auto reader = [](HttpClient& on, std::string url, bool& saw_cancel) -> Task<void> {
      try {
        Result reply = co_await on.get(std::move(url));
      } catch (const TaskCanceled&) {
        saw_cancel = true;
        throw;
      }
    };
    JoinHandle<void> handle = Scheduler::current().spawn(reader(client, upstream.url(), canceled));
    co_await Sleep(100ms);
    Scheduler::current().cancel(handle.tid());
    co_await Sleep(20ms);
  });
  EXPECT_TRUE(canceled);
  EXPECT_TRUE(upstream.wait_client_closes(1));
}

TEST_P(HttpClientStreamsTest, DestroyingTheClientClosesItsIdleConnections) {
  ScriptedUpstream upstream([](const UpstreamRequest&) { return ok_reply("x"); });
  run([&]() -> Task<void> {
    auto client = std::make_unique<HttpClient>();
    Result reply = co_await client->get(upstream.url());
    EXPECT_TRUE(reply);
    EXPECT_EQ(client->idle_connections(), 1u);
    client.reset();
    co_await Sleep(10ms);
  });
  EXPECT_TRUE(upstream.wait_client_closes(1));
}

TEST_P(HttpClientStreamsTest, AnExchangeMayOutliveItsClient) {
  ScriptedUpstream upstream([](const UpstreamRequest&) { return ok_reply("abc"); });
  std::string body;
  run([&]() -> Task<void> {
    auto client = std::make_unique<HttpClient>();
    ClientRequest request;
    request.url = upstream.url();
    ClientResult<ClientExchange> opened = co_await client->open(std::move(request));
    client.reset();
    if (!opened) co_return;
    for (;;) {
      const ClientBodyChunk chunk = co_await opened->read();
      if (!chunk) break;
      body.append(chunk.bytes);
    }
  });
  EXPECT_EQ(body, "abc");
  EXPECT_TRUE(upstream.wait_client_closes(1));
}

TEST_P(HttpClientStreamsTest, AResponseBodyPastMaxBodyBytesIsTooLarge) {
  ScriptedUpstream upstream([](const UpstreamRequest&) { return ok_reply(std::string(100, 'x')); });
  std::optional<Result> got;
  run([&]() -> Task<void> {
    HttpClientOptions options;
    options.limits.max_body_bytes = 10;
    HttpClient client(options);
    got.emplace(co_await client.get(upstream.url()));
  });
  ASSERT_FALSE(*got);
  EXPECT_EQ(got->error().kind, ClientErrorKind::too_large);
}

// The thread's shared client outlives this test's scheduler (both backends run
// on this thread, one scheduler after the other): its idle connection and
// sweeper from the first must not trouble the second.
TEST_P(HttpClientStreamsTest, ForThisThreadIsOneClientThatOutlivesAScheduler) {
  ScriptedUpstream upstream([](const UpstreamRequest&) { return ok_reply("shared"); });
  HttpClient* first = nullptr;
  HttpClient* second = nullptr;
  std::vector<std::string> bodies;
  run([&]() -> Task<void> {
    first = &HttpClient::for_this_thread();
    second = &HttpClient::for_this_thread();
    for (int i = 0; i < 2; ++i) {
      Result reply = co_await HttpClient::for_this_thread().get(upstream.url());
      bodies.push_back(reply ? reply->body : reply.error().message);
    }
    // Its idle sweeper sleeps on until the idle timeout: stop rather than run it out.
    Scheduler::current().stop();
  });
  EXPECT_EQ(first, second);
  EXPECT_EQ(bodies, (std::vector<std::string>{"shared", "shared"}));
  EXPECT_EQ(upstream.connections(), 1);
}

}  // namespace
}  // namespace tiffany
