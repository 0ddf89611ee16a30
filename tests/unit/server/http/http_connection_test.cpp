// HttpConnection (through HttpProtocol and serve_stream) over an in-memory stream: batching, keep-alive, errors,
// streaming, HEAD, 100-continue and failing handlers.
#include "server/http/http_connection.hpp"
#include "server/http/http_protocol.hpp"
#include "server/transport/serve_stream.hpp"

#include <gtest/gtest.h>

#include <deque>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <tiffany/coro/scheduler.hpp>
#include <tiffany/coro/sleep.hpp>
#include <tiffany/coro/syscalls.hpp>
#include <tiffany/handlers/handler.hpp>
#include <tiffany/http/request_context.hpp>

#include "support/scripted_stream.hpp"
#include "unit/server/http/serve_scripted.hpp"

namespace tiffany::http {
namespace {

using namespace std::chrono_literals;

using testing::ScriptedStream;

class Text final : public Handler {
 public:
  explicit Text(std::string body) : body_(std::move(body)) {}
  Task<void> handle(Request&, Response& response) override {
    response.headers.add("Content-Type", "text/plain");
    response.body = body_;
    co_return;
  }

 private:
  std::string body_;
};

class Throws final : public Handler {
 public:
  Task<void> handle(Request&, Response&) override {
    co_await Sleep{1ms};
    throw std::runtime_error("the database is on fire");
  }
};

class Streams final : public Handler {
 public:
  explicit Streams(bool declare_length) : declare_length_(declare_length) {}
  Task<void> handle(Request&, Response& response) override {
    if (declare_length_) response.set_content_length(11);
    const Delivery written = co_await response.write("hello");
    if (written == Delivery::closed) co_return;
    co_await Sleep{1ms};
    co_await response.write(" world");
  }

 private:
  bool declare_length_;
};

// Sets one header as given, then answers whole or streamed.
class SetsHeader final : public Handler {
 public:
  SetsHeader(std::string name, std::string value, bool stream)
      : name_(std::move(name)), value_(std::move(value)), stream_(stream) {}
  Task<void> handle(Request&, Response& response) override {
    response.headers.add(name_, value_);
    if (!stream_) {
      response.body = "body";
      co_return;
    }
    const Delivery written = co_await response.write("piece one");
    if (written == Delivery::sent) co_await response.write("piece two");  // a handler that ignores the failure
  }

 private:
  std::string name_;
  std::string value_;
  bool stream_;
};

class Echo final : public Handler {
 public:
  Task<void> handle(Request& request, Response& response) override {
    response.body = request.body;
    co_return;
  }
};

// Answers with what the request's task context holds, as seen by a task the
// handler spawns: "<request id> <route pattern>".
class ReportsContext final : public Handler {
 public:
  Task<void> handle(Request&, Response& response) override {
    auto child = co_await Spawn{describe_context()};
    response.body = co_await Join{std::move(child)};
  }

 private:
  static Task<std::string> describe_context() {
    const std::string* id = kRequestId.get();
    const RouteInfo* route = kRoute.get();
    co_return (id != nullptr ? *id : "-") + " " + (route != nullptr ? std::string(route->pattern) : "-");
  }
};

HttpSite make_site() {
  HttpSite site;
  site.router.add({"GET"}, "/context/:name", std::make_shared<ReportsContext>());
  site.router.add({"GET"}, "/hello", std::make_shared<Text>("hi"));
  site.router.add({"GET"}, "/boom", std::make_shared<Throws>());
  site.router.add({"GET"}, "/chunked", std::make_shared<Streams>(false));
  site.router.add({"GET"}, "/sized", std::make_shared<Streams>(true));
  site.router.add({"POST"}, "/echo", std::make_shared<Echo>());
  site.router.add({"GET"}, "/good", std::make_shared<SetsHeader>("X-Fine", "a\tvalue \x80\xff", false));
  site.router.add({"GET"}, "/cr", std::make_shared<SetsHeader>("X-Bad", std::string("a\rX-Injected: yes"), false),
                  "handler \"cr\"");
  site.router.add({"GET"}, "/lf", std::make_shared<SetsHeader>("X-Bad", std::string("a\nX-Injected: yes"), false));
  site.router.add({"GET"}, "/nul", std::make_shared<SetsHeader>("X-Bad", std::string("a\0b", 3), false));
  site.router.add({"GET"}, "/name", std::make_shared<SetsHeader>("X-Injected: yes\r\nX-Bad", "v", false));
  site.router.add({"GET"}, "/space-name", std::make_shared<SetsHeader>("X Bad", "v", false));
  site.router.add({"GET"}, "/empty-name", std::make_shared<SetsHeader>("", "v", false));
  site.router.add({"GET"}, "/streamed-crlf", std::make_shared<SetsHeader>("X-Bad", "a\r\nX-Injected: yes", true),
                  "handler \"streamer\"");
  return site;
}

// Runs one connection over `reads` to completion; returns the stream.
std::unique_ptr<ScriptedStream> serve(std::vector<std::string> reads) {
  static const HttpSite site = make_site();
  return tiffany::testing::serve_scripted(site, std::move(reads));
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

const std::string kGetHello = "GET /hello HTTP/1.1\r\nHost: t\r\n\r\n";

TEST(HttpConnection, AHandlersChildrenSeeTheRequestIdAndRouteWhichTheResponseEchoes) {
  const auto stream = serve({"GET /context/a HTTP/1.1\r\nHost: t\r\nX-Request-Id: given-1\r\n\r\n"
                             "GET /context/b HTTP/1.1\r\nHost: t\r\nX-Request-Id: bad id\r\n\r\n"});
  std::string out;
  for (const std::string& write : stream->writes) out += write;
  EXPECT_NE(out.find("X-Request-Id: given-1\r\n"), std::string::npos) << out;
  EXPECT_NE(out.find("\r\n\r\ngiven-1 /context/:name"), std::string::npos) << out;
  // An invalid id is replaced by a generated one, the same in header and context.
  const std::size_t second = out.find("X-Request-Id: ", out.find("given-1 /context/:name"));
  ASSERT_NE(second, std::string::npos) << out;
  const std::string generated = out.substr(second + 14, 32);
  EXPECT_EQ(generated.find_first_not_of("0123456789abcdef"), std::string::npos) << out;
  EXPECT_NE(out.find(generated + " /context/:name"), std::string::npos) << out;
  EXPECT_EQ(out.find("bad id"), std::string::npos) << out;
}

TEST(HttpConnection, ARequestThatMatchesNoRouteDoesNotKeepThePreviousRoute) {
  static const HttpSite site = make_site();
  ScriptedStream stream({kGetHello + "GET /nope HTTP/1.1\r\nHost: t\r\n\r\n"});
  Scheduler scheduler;
  auto body = [](ScriptedStream& s) -> Task<bool> {
    HttpProtocol protocol(site);
    co_await serve_stream(protocol, s, "127.0.0.1:1", nullptr);
    co_return kRoute.get() == nullptr && kRequestId.get() != nullptr;  // the 404's id, no route
  };
  auto handle = scheduler.spawn(body(stream));
  scheduler.run();
  EXPECT_TRUE(handle.take_result());
}

TEST(HttpConnection, AnswersPipelinedRequestsFromOneReadInOneWrite) {
  const auto stream = serve({kGetHello + kGetHello + "GET /nope HTTP/1.1\r\nHost: t\r\n\r\n" + kGetHello});
  ASSERT_EQ(stream->writes.size(), 1u);
  const std::string& out = stream->writes[0];
  EXPECT_EQ(count(out, "HTTP/1.1 200 OK\r\n"), 3u);
  EXPECT_EQ(count(out, "HTTP/1.1 404 Not Found\r\n"), 1u);
  EXPECT_LT(out.find("HTTP/1.1 404"), out.rfind("200 OK"));  // in request order
}

TEST(HttpConnection, WritesTheStandardHeaders) {
  const auto stream = serve({kGetHello});
  ASSERT_EQ(stream->writes.size(), 1u);
  const std::string& out = stream->writes[0];
  EXPECT_EQ(out.rfind("HTTP/1.1 200 OK\r\nServer: tiffany\r\nDate: ", 0), 0u) << out;
  EXPECT_NE(out.find(" GMT\r\n"), std::string::npos);
  EXPECT_NE(out.find("Content-Length: 2\r\nContent-Type: text/plain\r\n\r\nhi"), std::string::npos) << out;
  EXPECT_EQ(out.find("Connection:"), std::string::npos);  // keep-alive is HTTP/1.1's default
}

TEST(HttpConnection, KeepsTheConnectionAcrossReads) {
  const auto stream = serve({kGetHello, kGetHello, kGetHello});
  EXPECT_EQ(stream->writes.size(), 3u);
  EXPECT_TRUE(stream->finished);  // the peer closed first: our side ends too (TLS: close_notify)
}

TEST(HttpConnection, ConnectionCloseEndsAfterThatResponse) {
  const auto stream = serve({"GET /hello HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n" + kGetHello});
  ASSERT_EQ(stream->writes.size(), 1u);
  EXPECT_EQ(count(stream->writes[0], "HTTP/1.1 200"), 1u);
  EXPECT_NE(stream->writes[0].find("Connection: close\r\n"), std::string::npos);
  EXPECT_TRUE(stream->finished);
}

TEST(HttpConnection, Http10GetsKeepAliveOnlyWhenItAsks) {
  auto stream = serve({"GET /hello HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", "GET /hello HTTP/1.0\r\n\r\n"});
  ASSERT_EQ(stream->writes.size(), 2u);
  EXPECT_NE(stream->writes[0].find("Connection: keep-alive\r\n"), std::string::npos);
  EXPECT_NE(stream->writes[1].find("Connection: close\r\n"), std::string::npos);
}

TEST(HttpConnection, HeadGetsTheHeadersWithoutTheBody) {
  const auto stream = serve({"HEAD /hello HTTP/1.1\r\nHost: t\r\n\r\n"});
  ASSERT_EQ(stream->writes.size(), 1u);
  EXPECT_NE(stream->writes[0].find("Content-Length: 2\r\n"), std::string::npos);
  EXPECT_TRUE(stream->writes[0].ends_with("\r\n\r\n"));
}

TEST(HttpConnection, BadInputGetsItsStatusAfterEarlierResponsesThenCloses) {
  const auto stream = serve({kGetHello + "GET / HTTP/1.1\r\nHost: t\r\nBad Header\r\n\r\n" + kGetHello});
  ASSERT_EQ(stream->writes.size(), 1u);
  const std::string& out = stream->writes[0];
  EXPECT_EQ(count(out, "HTTP/1.1 200"), 1u);
  EXPECT_NE(out.find("HTTP/1.1 400 Bad Request\r\n"), std::string::npos);
  EXPECT_NE(out.find("Connection: close\r\n"), std::string::npos);
  EXPECT_TRUE(stream->finished);
}

TEST(HttpConnection, MethodMismatchGives405WithAllow) {
  const auto stream = serve({"DELETE /hello HTTP/1.1\r\nHost: t\r\n\r\n"});
  ASSERT_EQ(stream->writes.size(), 1u);
  EXPECT_NE(stream->writes[0].find("HTTP/1.1 405 Method Not Allowed\r\n"), std::string::npos);
  EXPECT_NE(stream->writes[0].find("Allow: GET, HEAD\r\n"), std::string::npos);
}

TEST(HttpConnection, AThrowingHandlerGives500ALogLineAndAClose) {
  ::testing::internal::CaptureStderr();
  const auto stream = serve({"GET /boom HTTP/1.1\r\nHost: t\r\n\r\n" + kGetHello});
  const std::string log = ::testing::internal::GetCapturedStderr();
  ASSERT_EQ(stream->writes.size(), 1u);
  EXPECT_NE(stream->writes[0].find("HTTP/1.1 500 Internal Server Error\r\n"), std::string::npos);
  EXPECT_NE(stream->writes[0].find("Connection: close\r\n"), std::string::npos);
  EXPECT_EQ(count(stream->writes[0], "HTTP/1.1 200"), 0u);  // the pipelined request is not run
  EXPECT_NE(log.find("handler failed on GET /boom: the database is on fire"), std::string::npos) << log;
}

TEST(HttpConnection, StreamsChunkedWhenTheLengthIsUnknown) {
  const auto stream = serve({"GET /chunked HTTP/1.1\r\nHost: t\r\n\r\n"});
  std::string out;
  for (const auto& w : stream->writes) out += w;
  EXPECT_GE(stream->writes.size(), 2u);  // the first piece went out before the handler finished
  EXPECT_NE(out.find("Transfer-Encoding: chunked\r\n"), std::string::npos);
  EXPECT_TRUE(out.ends_with("\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n")) << out;
}

TEST(HttpConnection, StreamsWithContentLengthWhenDeclared) {
  const auto stream = serve({"GET /sized HTTP/1.1\r\nHost: t\r\n\r\n", kGetHello});
  std::string out;
  for (const auto& w : stream->writes) out += w;
  EXPECT_NE(out.find("Content-Length: 11\r\n"), std::string::npos);
  EXPECT_NE(out.find("\r\n\r\nhello world"), std::string::npos);
  EXPECT_EQ(count(out, "HTTP/1.1 200"), 2u);  // still keep-alive
}

TEST(HttpConnection, StreamsToHttp10ByClosing) {
  const auto stream = serve({"GET /chunked HTTP/1.0\r\n\r\n"});
  std::string out;
  for (const auto& w : stream->writes) out += w;
  EXPECT_EQ(out.find("chunked"), std::string::npos);
  EXPECT_NE(out.find("Connection: close\r\n"), std::string::npos);
  EXPECT_TRUE(out.ends_with("\r\n\r\nhello world"));
  EXPECT_TRUE(stream->finished);
}

TEST(HttpConnection, AStreamedResponseToHeadHasNoBodyAndKeepsTheConnectionInStep) {
  const auto stream = serve({"HEAD /chunked HTTP/1.1\r\nHost: t\r\n\r\n" + kGetHello});
  std::string out;
  for (const auto& w : stream->writes) out += w;
  const auto second = out.find("HTTP/1.1 200 OK", 1);
  ASSERT_NE(second, std::string::npos) << out;
  const std::string first = out.substr(0, second);
  EXPECT_TRUE(first.ends_with("\r\n\r\n")) << first;  // the head only: no chunks, no terminator
  EXPECT_EQ(first.find("hello"), std::string::npos);
  EXPECT_TRUE(out.ends_with("\r\n\r\nhi")) << out;  // the next response parses cleanly
}

TEST(HttpConnection, SendsContinueBeforeReadingAnExpectedBody) {
  const auto stream =
      serve({"POST /echo HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n", "ping"});
  ASSERT_EQ(stream->writes.size(), 2u);
  EXPECT_EQ(stream->writes[0], "HTTP/1.1 100 Continue\r\n\r\n");
  EXPECT_TRUE(stream->writes[1].ends_with("\r\n\r\nping"));
}

TEST(HttpConnection, AnswersAnExpectedBodyForNoRouteWithoutInvitingIt) {
  // The body never comes: the answer must not wait for it, nor say 100 Continue.
  for (const char* target : {"/nope", "/hello"}) {  // no route; a route for GET only
    const auto stream = serve({std::string("POST ") + target +
                               " HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n"});
    std::string out;
    for (const auto& w : stream->writes) out += w;
    EXPECT_EQ(out.find("100 Continue"), std::string::npos) << out;
    EXPECT_TRUE(out.starts_with(std::string("HTTP/1.1 ") + (target == std::string("/nope") ? "404" : "405"))) << out;
    EXPECT_NE(out.find("Connection: close\r\n"), std::string::npos) << out;
    EXPECT_TRUE(stream->finished);
  }
}

TEST(HttpConnection, AnswersOptionsAsteriskWithoutRouting) {
  const auto stream = serve({"OPTIONS * HTTP/1.1\r\nHost: t\r\n\r\n" + kGetHello});
  std::string out;
  for (const auto& w : stream->writes) out += w;
  EXPECT_TRUE(out.starts_with("HTTP/1.1 200 OK\r\n")) << out;
  EXPECT_NE(out.find("Content-Length: 0\r\n"), std::string::npos) << out;
  EXPECT_TRUE(out.ends_with("\r\n\r\nhi")) << out;
}

TEST(HttpConnection, ARequestCutOffByEofGets400) {
  const auto stream = serve({"POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 10\r\n\r\nabc"});
  ASSERT_EQ(stream->writes.size(), 1u);
  EXPECT_NE(stream->writes[0].find("HTTP/1.1 400"), std::string::npos);
}

TEST(HttpConnection, WritesHeaderValuesWithTabsSpacesAndHighBytesAsTheyAre) {
  const auto stream = serve({"GET /good HTTP/1.1\r\nHost: t\r\n\r\n"});
  ASSERT_EQ(stream->writes.size(), 1u);
  EXPECT_NE(stream->writes[0].find("HTTP/1.1 200 OK\r\n"), std::string::npos);
  EXPECT_NE(stream->writes[0].find("\r\nX-Fine: a\tvalue \x80\xff\r\n"), std::string::npos) << stream->writes[0];
}

TEST(HttpConnection, AHeaderValueHoldingCrLfOrNulBecomesA500AndNoneOfItIsWritten) {
  for (const char* path : {"/cr", "/lf", "/nul"}) {
    SCOPED_TRACE(path);
    ::testing::internal::CaptureStderr();
    const auto stream = serve({std::string("GET ") + path + " HTTP/1.1\r\nHost: t\r\n\r\n" + kGetHello});
    const std::string log = ::testing::internal::GetCapturedStderr();
    ASSERT_EQ(stream->writes.size(), 1u);
    const std::string& out = stream->writes[0];
    EXPECT_EQ(out.rfind("HTTP/1.1 500 Internal Server Error\r\n", 0), 0u) << out;
    EXPECT_NE(out.find("Connection: close\r\n"), std::string::npos) << out;
    EXPECT_EQ(out.find("X-Bad"), std::string::npos) << out;
    EXPECT_EQ(out.find("X-Injected"), std::string::npos) << out;
    EXPECT_EQ(out.find("body"), std::string::npos) << out;
    EXPECT_EQ(count(out, "HTTP/1.1 "), 1u) << out;  // the pipelined request is not run
    EXPECT_NE(log.find(std::string(" on GET ") + path + ": \"X-Bad\" has byte 0x"), std::string::npos) << log;
    EXPECT_EQ(count(log, "\n"), 1u) << log;  // one line: the value's bytes never reach the log raw
  }
}

TEST(HttpConnection, TheErrorLogNamesTheHandlerThatSetTheBadHeader) {
  ::testing::internal::CaptureStderr();
  const auto stream = serve({"GET /cr HTTP/1.1\r\nHost: t\r\n\r\n"});
  const std::string log = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(log.find("handler \"cr\" set an invalid response header on GET /cr: \"X-Bad\" has byte 0x0d at "
                     "offset 1 of its value; answered 500"),
            std::string::npos)
      << log;
}

TEST(HttpConnection, AHeaderNameThatIsNotATokenBecomesA500AndNoneOfItIsWritten) {
  for (const char* path : {"/name", "/space-name", "/empty-name"}) {
    SCOPED_TRACE(path);
    ::testing::internal::CaptureStderr();
    const auto stream = serve({std::string("GET ") + path + " HTTP/1.1\r\nHost: t\r\n\r\n"});
    const std::string log = ::testing::internal::GetCapturedStderr();
    ASSERT_EQ(stream->writes.size(), 1u);
    const std::string& out = stream->writes[0];
    EXPECT_EQ(out.rfind("HTTP/1.1 500 Internal Server Error\r\n", 0), 0u) << out;
    EXPECT_EQ(out.find("X-Bad"), std::string::npos) << out;
    EXPECT_EQ(out.find("X-Injected"), std::string::npos) << out;
    EXPECT_EQ(out.find("X Bad"), std::string::npos) << out;
    EXPECT_EQ(out.find("\r\n: v"), std::string::npos) << out;
    EXPECT_NE(log.find("is not a valid field name"), std::string::npos) << log;
    EXPECT_EQ(count(log, "\n"), 1u) << log;
  }
}

TEST(HttpConnection, AStreamedResponseWithABadHeaderBecomesA500BeforeAnyOfItIsWritten) {
  ::testing::internal::CaptureStderr();
  const auto stream = serve({"GET /streamed-crlf HTTP/1.1\r\nHost: t\r\n\r\n" + kGetHello});
  const std::string log = ::testing::internal::GetCapturedStderr();
  std::string out;
  for (const auto& w : stream->writes) out += w;
  EXPECT_EQ(out.rfind("HTTP/1.1 500 Internal Server Error\r\n", 0), 0u) << out;
  EXPECT_EQ(count(out, "HTTP/1.1 "), 1u) << out;
  EXPECT_NE(out.find("Connection: close\r\n"), std::string::npos) << out;
  EXPECT_NE(out.find("Content-Length: "), std::string::npos) << out;  // a complete 500, not a chunked stream
  EXPECT_EQ(out.find("X-Injected"), std::string::npos) << out;
  EXPECT_EQ(out.find("piece"), std::string::npos) << out;
  EXPECT_TRUE(stream->finished);
  EXPECT_NE(log.find("handler \"streamer\" set an invalid response header on GET /streamed-crlf"), std::string::npos)
      << log;
}

}  // namespace
}  // namespace tiffany::http
