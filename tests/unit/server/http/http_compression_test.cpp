// HttpConnection with a compressing route: whole, streamed (chunked, declared, HTTP/1.0), HEAD, 304, pipelining.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include <tiffany/coro/scheduler.hpp>
#include <tiffany/coro/sleep.hpp>
#include <tiffany/handlers/handler.hpp>

#include "http/engine/compression/compression_settings.hpp"
#include "server/http/http_protocol.hpp"
#include "server/transport/serve_stream.hpp"
#include "support/decode_content.hpp"
#include "support/scripted_stream.hpp"
#include "unit/server/http/serve_scripted.hpp"

namespace tiffany::http {
namespace {

using namespace std::chrono_literals;
using testing::decode_content;
using testing::decode_prefix;
using testing::ScriptedStream;

std::string page(std::size_t size) {
  std::string text;
  for (int i = 0; text.size() < size; ++i) text += "<p>paragraph " + std::to_string(i) + " of a long page</p>\n";
  text.resize(size);
  return text;
}

// A page, with an ETag; 304 when If-None-Match names it.
class Page final : public Handler {
 public:
  Task<void> handle(Request& request, Response& response) override {
    response.headers.add("ETag", "\"p1\"");
    if (request.headers.get("If-None-Match") == "\"p1\"") {
      response.status = 304;
      co_return;
    }
    response.headers.add("Content-Type", "text/html");
    response.body = page(8000);
  }
};

// Streams three pieces of a page, pausing between them; optionally declares the length.
class StreamedPage final : public Handler {
 public:
  explicit StreamedPage(bool declare) : declare_(declare) {}
  Task<void> handle(Request&, Response& response) override {
    response.headers.add("Content-Type", "text/plain");
    if (declare_) response.set_content_length(3 * 3000);
    const std::string text = page(3000);
    for (int i = 0; i < 3; ++i) {
      const Delivery written = co_await response.write(text);
      if (written == Delivery::closed) co_return;
      co_await Sleep{1ms};
    }
  }

 private:
  bool declare_;
};

HttpSite make_site() {
  HttpSite site;
  auto settings = std::make_shared<CompressionSettings>();
  settings->min_bytes = 1000;
  site.compression.push_back(settings);
  site.router.add({"GET"}, "/page", std::make_shared<Page>(), "handler", nullptr, settings.get());
  site.router.add({"GET"}, "/plain-page", std::make_shared<Page>());  // no compression on this route
  site.router.add({"GET"}, "/stream", std::make_shared<StreamedPage>(false), "handler", nullptr, settings.get());
  site.router.add({"GET"}, "/sized", std::make_shared<StreamedPage>(true), "handler", nullptr, settings.get());
  return site;
}

std::unique_ptr<ScriptedStream> serve(std::vector<std::string> reads) {
  static const HttpSite site = make_site();
  return tiffany::testing::serve_scripted(site, std::move(reads));
}

std::string get(const std::string& path, const std::string& extra = "", const std::string& version = "1.1") {
  return "GET " + path + " HTTP/" + version + "\r\nHost: t\r\n" + extra + "\r\n";
}

struct Parsed {
  std::string head;
  std::string body;  // de-chunked
  bool chunked = false;
};

// Splits one response off the front of `text` (Content-Length, chunked, or to the end).
Parsed take_response(std::string& text) {
  Parsed parsed;
  const auto head_end = text.find("\r\n\r\n");
  if (head_end == std::string::npos) return parsed;
  parsed.head = text.substr(0, head_end + 2);
  std::string rest = text.substr(head_end + 4);
  const auto length_at = parsed.head.find("Content-Length: ");
  if (parsed.head.find("Transfer-Encoding: chunked") != std::string::npos) {
    parsed.chunked = true;
    for (;;) {
      const auto line_end = rest.find("\r\n");
      const std::size_t size = std::stoul(rest.substr(0, line_end), nullptr, 16);
      parsed.body += rest.substr(line_end + 2, size);
      rest.erase(0, line_end + 2 + size + 2);
      if (size == 0) break;
    }
  } else if (length_at != std::string::npos && parsed.head.rfind("HTTP/1.1 304", 0) != 0 &&
             parsed.head.find("HEAD") == std::string::npos) {
    const std::size_t length = std::stoul(parsed.head.substr(length_at + 16));
    parsed.body = rest.substr(0, length);
    rest.erase(0, length);
  } else {
    parsed.body = rest;
    rest.clear();
  }
  text = rest;
  return parsed;
}

bool has_field(const std::string& head, const std::string& field) {
  return head.find("\r\n" + field + "\r\n") != std::string::npos;
}

TEST(HttpCompression, AWholeResponseIsEncodedWithItsEncodedLength) {
  const auto stream = serve({get("/page", "Accept-Encoding: gzip\r\n")});
  std::string out = stream->written();
  const Parsed response = take_response(out);
  EXPECT_TRUE(has_field(response.head, "Content-Encoding: gzip")) << response.head;
  EXPECT_TRUE(has_field(response.head, "Vary: Accept-Encoding")) << response.head;
  EXPECT_TRUE(has_field(response.head, "ETag: \"p1-gzip\"")) << response.head;
  EXPECT_TRUE(has_field(response.head, "Content-Length: " + std::to_string(response.body.size()))) << response.head;
  EXPECT_EQ(decode_content("gzip", response.body), page(8000));
}

TEST(HttpCompression, ARouteWithoutCompressionAnswersAsBefore) {
  const auto stream = serve({get("/plain-page", "Accept-Encoding: gzip\r\n")});
  std::string out = stream->written();
  const Parsed response = take_response(out);
  EXPECT_EQ(response.head.find("Content-Encoding"), std::string::npos) << response.head;
  EXPECT_EQ(response.head.find("Vary"), std::string::npos) << response.head;
  EXPECT_EQ(response.body, page(8000));
}

TEST(HttpCompression, HeadHasGetsHeaderFieldsButNoBodyAndNoLength) {
  const auto stream = serve({"HEAD /page HTTP/1.1\r\nHost: t\r\nAccept-Encoding: br\r\n\r\n" + get("/page")});
  std::string out = stream->written();
  const auto head_end = out.find("\r\n\r\n");
  const std::string head = out.substr(0, head_end + 2);
  EXPECT_TRUE(has_field(head, "Content-Encoding: br")) << head;
  EXPECT_TRUE(has_field(head, "Vary: Accept-Encoding")) << head;
  EXPECT_TRUE(has_field(head, "ETag: \"p1-br\"")) << head;
  EXPECT_EQ(head.find("Content-Length"), std::string::npos) << head;
  // The next response follows at once: the HEAD answer had no body.
  EXPECT_EQ(out.compare(head_end + 4, 9, "HTTP/1.1 "), 0) << out.substr(head_end + 4, 40);
}

TEST(HttpCompression, ARevalidationWithTheEncodedETagGets304WithIt) {
  const auto stream = serve({get("/page", "Accept-Encoding: gzip\r\nIf-None-Match: \"p1-gzip\"\r\n")});
  std::string out = stream->written();
  const Parsed response = take_response(out);
  EXPECT_EQ(response.head.rfind("HTTP/1.1 304 ", 0), 0u) << response.head;
  EXPECT_TRUE(has_field(response.head, "ETag: \"p1-gzip\"")) << response.head;
  EXPECT_TRUE(has_field(response.head, "Vary: Accept-Encoding")) << response.head;
  EXPECT_EQ(response.head.find("Content-Encoding"), std::string::npos) << response.head;
}

TEST(HttpCompression, TheIdentityETagDoesNotValidateTheEncodedRepresentation) {
  // A client holding the gzip answer under "p1-gzip" asks with br now: its tag names another representation.
  const auto stream = serve({get("/page", "Accept-Encoding: br\r\nIf-None-Match: \"p1-gzip\"\r\n")});
  std::string out = stream->written();
  const Parsed response = take_response(out);
  EXPECT_EQ(response.head.rfind("HTTP/1.1 200 ", 0), 0u) << response.head;
  EXPECT_TRUE(has_field(response.head, "ETag: \"p1-br\"")) << response.head;
}

TEST(HttpCompression, AStreamIsChunkedAndEachPieceIsFlushedDecodable) {
  const auto stream = serve({get("/stream", "Accept-Encoding: zstd\r\n")});
  ASSERT_GE(stream->writes.size(), 3u);
  // The first write holds the head and the first piece: decodable on its own.
  std::string first = stream->writes[0];
  const auto head_end = first.find("\r\n\r\n");
  const std::string head = first.substr(0, head_end + 2);
  EXPECT_TRUE(has_field(head, "Transfer-Encoding: chunked")) << head;
  EXPECT_TRUE(has_field(head, "Content-Encoding: zstd")) << head;
  std::string chunk = first.substr(head_end + 4);
  const auto line_end = chunk.find("\r\n");
  const std::size_t size = std::stoul(chunk.substr(0, line_end), nullptr, 16);
  EXPECT_EQ(decode_prefix("zstd", chunk.substr(line_end + 2, size)), page(3000));

  std::string out = stream->written();
  const Parsed response = take_response(out);
  EXPECT_EQ(decode_content("zstd", response.body), page(3000) + page(3000) + page(3000));
}

TEST(HttpCompression, ADeclaredLengthGivesWayToChunkingAndTheConnectionStaysOpen) {
  const auto stream = serve({get("/sized", "Accept-Encoding: gzip\r\n") + get("/page")});
  std::string out = stream->written();
  const Parsed first = take_response(out);
  EXPECT_TRUE(first.chunked) << first.head;
  EXPECT_EQ(first.head.find("Content-Length"), std::string::npos) << first.head;
  EXPECT_EQ(first.head.find("Connection: close"), std::string::npos) << first.head;
  EXPECT_EQ(decode_content("gzip", first.body), page(3000) + page(3000) + page(3000));
  const Parsed second = take_response(out);
  EXPECT_EQ(second.head.rfind("HTTP/1.1 200 ", 0), 0u) << second.head;
  EXPECT_EQ(second.body, page(8000));  // no Accept-Encoding: identity
}

TEST(HttpCompression, AnHttp10StreamIsEncodedUpToTheClose) {
  const auto stream = serve({get("/stream", "Accept-Encoding: br\r\n", "1.0")});
  std::string out = stream->written();
  const Parsed response = take_response(out);
  EXPECT_FALSE(response.chunked);
  EXPECT_TRUE(has_field(response.head, "Connection: close")) << response.head;
  EXPECT_EQ(decode_content("br", response.body), page(3000) + page(3000) + page(3000));
}

TEST(HttpCompression, PipelinedResponsesAreEachEncodedInOneWrite) {
  const auto stream =
      serve({get("/page", "Accept-Encoding: gzip\r\n") + get("/page", "Accept-Encoding: br\r\n") + get("/page")});
  ASSERT_EQ(stream->writes.size(), 1u);
  std::string out = stream->written();
  EXPECT_EQ(decode_content("gzip", take_response(out).body), page(8000));
  EXPECT_EQ(decode_content("br", take_response(out).body), page(8000));
  EXPECT_EQ(take_response(out).body, page(8000));
}

TEST(HttpCompression, GarbageInAcceptEncodingIsAnsweredAsIfAbsent) {
  const auto stream = serve({get("/page", "Accept-Encoding: gzip;q=7, @@\r\n")});
  std::string out = stream->written();
  const Parsed response = take_response(out);
  EXPECT_EQ(response.head.rfind("HTTP/1.1 200 ", 0), 0u) << response.head;
  EXPECT_EQ(response.head.find("Content-Encoding"), std::string::npos) << response.head;
  EXPECT_EQ(response.body, page(8000));
}

}  // namespace
}  // namespace tiffany::http
