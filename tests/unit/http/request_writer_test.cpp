// RequestWriter: outbound request heads as the server's strict parser reads
// them, every injection refused, and chunks any chunked parser decodes.
#include "http/engine/request_writer.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>

#include "http/engine/request_parser.hpp"

namespace tiffany::http {
namespace {

std::string write_ok(const OutboundRequest& request) {
  std::string out = "kept:";
  std::string error;
  EXPECT_TRUE(write_request_head(request, out, error)) << error;
  EXPECT_TRUE(error.empty());
  return out.substr(5);
}

// What is wrong with `request` (empty when it was written); nothing may be appended on error.
std::string refusal(const OutboundRequest& request) {
  std::string out = "kept";
  std::string error;
  if (write_request_head(request, out, error)) return "";
  EXPECT_EQ(out, "kept");
  EXPECT_FALSE(error.empty());
  return error;
}

TEST(RequestWriter, HostComesFirstThenFieldsThenFraming) {
  Headers headers;
  headers.add("Accept", "*/*");
  headers.add("X-Trace", "a b\tc");
  OutboundRequest request;
  request.method = "POST";
  request.target = "/submit?x=1";
  request.host = "example.com:8080";
  request.headers = &headers;
  request.framing = RequestFraming::content_length;
  request.content_length = 11;
  EXPECT_EQ(write_ok(request),
            "POST /submit?x=1 HTTP/1.1\r\nHost: example.com:8080\r\nAccept: */*\r\nX-Trace: a b\tc\r\n"
            "Content-Length: 11\r\n\r\n");
}

TEST(RequestWriter, FramingIsTheCallers) {
  OutboundRequest request;
  request.host = "h";
  EXPECT_EQ(write_ok(request), "GET / HTTP/1.1\r\nHost: h\r\n\r\n");
  request.framing = RequestFraming::chunked;
  EXPECT_EQ(write_ok(request), "GET / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n");
  request.framing = RequestFraming::content_length;
  request.content_length = 0;
  EXPECT_EQ(write_ok(request), "GET / HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n");
  request.content_length = UINT64_MAX;
  EXPECT_EQ(write_ok(request), "GET / HTTP/1.1\r\nHost: h\r\nContent-Length: 18446744073709551615\r\n\r\n");
}

TEST(RequestWriter, AbsoluteAndAsteriskFormsAreWritten) {
  OutboundRequest request;
  request.host = "[::1]:80";
  request.target = "http://[::1]:80/p";
  EXPECT_EQ(write_ok(request), "GET http://[::1]:80/p HTTP/1.1\r\nHost: [::1]:80\r\n\r\n");
  request.method = "OPTIONS";
  request.target = "*";
  EXPECT_EQ(write_ok(request), "OPTIONS * HTTP/1.1\r\nHost: [::1]:80\r\n\r\n");
}

TEST(RequestWriter, InjectionIsRefused) {
  OutboundRequest request;
  request.host = "h";
  for (const char* method : {"", "GE T", "GET\r\nX: y", "G(T"}) {
    request.method = method;
    EXPECT_NE(refusal(request), "") << method;
  }
  request.method = "GET";
  for (const char* target : {"", "/a b", "/a\tb", "/a\r\nX: y", "/\x7f", "/\xc3\xa9"}) {
    request.target = target;
    EXPECT_NE(refusal(request), "") << target;
  }
  request.target = std::string_view("/a\0b", 4);
  EXPECT_NE(refusal(request), "");
  request.target = "/";
  for (const char* host : {"", "h\r\nX: y", "a b", "user@h", "h/p"}) {
    request.host = host;
    EXPECT_NE(refusal(request), "") << host;
  }
  request.host = "h";
  for (const auto& [name, value] :
       std::initializer_list<std::pair<std::string_view, std::string_view>>{{"X-A", "a\r\nX-B: b"},
                                                                            {"X-A", "a\nb"},
                                                                            {"X-A", "a\rb"},
                                                                            {"X-A", std::string_view("a\0b", 3)},
                                                                            {"X A", "v"},
                                                                            {"X:A", "v"},
                                                                            {"", "v"},
                                                                            {"X-A\r\n", "v"}}) {
    Headers headers;
    headers.add(name, value);
    request.headers = &headers;
    EXPECT_NE(refusal(request), "") << name;
  }
}

TEST(RequestWriter, HostAndFramingFieldsFromTheCallerAreRefused) {
  OutboundRequest request;
  request.host = "h";
  for (const char* name : {"Host", "content-length", "Transfer-Encoding"}) {
    Headers headers;
    headers.add(name, "1");
    request.headers = &headers;
    EXPECT_NE(refusal(request).find(name), std::string::npos) << name;
  }
}

TEST(RequestWriter, TheServersStrictParserReadsItBack) {
  Headers headers;
  headers.add("X-A", "1");
  OutboundRequest request;
  request.method = "PUT";
  request.target = "/up?x=y";
  request.host = "example";
  request.headers = &headers;
  request.framing = RequestFraming::chunked;
  std::string bytes = write_ok(request);
  append_chunk(bytes, "hello ");
  append_chunk(bytes, "");  // nothing: an empty chunk would end the body
  append_chunk(bytes, std::string(300, 'w'));
  bytes += kLastChunk;

  RequestParser parser(HttpLimits{});
  const auto result = parser.feed(bytes);
  ASSERT_EQ(result.event, RequestParser::Event::request_ready) << parser.error_detail();
  EXPECT_EQ(result.consumed, bytes.size());
  EXPECT_EQ(parser.request().method, "PUT");
  EXPECT_EQ(parser.request().target, "/up?x=y");
  EXPECT_EQ(parser.request().headers.get("host"), "example");
  EXPECT_EQ(parser.request().headers.get("x-a"), "1");
  EXPECT_EQ(parser.request().body, "hello " + std::string(300, 'w'));
}

TEST(RequestWriter, ChunkHeadsAreLowerCaseHex) {
  EXPECT_EQ(chunk_head(1).view(), "1\r\n");
  EXPECT_EQ(chunk_head(300).view(), "12c\r\n");
  EXPECT_EQ(chunk_head(UINT64_MAX).view(), "ffffffffffffffff\r\n");
  std::string out;
  append_chunk(out, "abc");
  EXPECT_EQ(out, "3\r\nabc\r\n");
}

}  // namespace
}  // namespace tiffany::http
