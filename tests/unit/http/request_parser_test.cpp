// RequestParser: requests from bytes however they are cut, and the precise
// status for every kind of bad input.
#include "http/engine/request_parser.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace tiffany::http {
namespace {

using Event = RequestParser::Event;

struct Parsed {
  std::vector<Request> requests;
  std::vector<bool> keep_alive;
  int error_status = 0;
};

// Feeds `pieces` in order, collecting every request; stops at an error.
Parsed parse_pieces(const std::vector<std::string>& pieces, const HttpLimits& limits = {}) {
  RequestParser parser(limits);
  Parsed out;
  for (const std::string& piece : pieces) {
    std::string_view input = piece;
    while (!input.empty()) {
      const auto result = parser.feed(input);
      input.remove_prefix(result.consumed);
      if (result.event == Event::need_more) break;
      if (result.event == Event::error) {
        out.error_status = parser.error_status();
        return out;
      }
      out.requests.push_back(parser.request());
      out.keep_alive.push_back(parser.keep_alive());
      parser.next();
    }
  }
  if (parser.finish() == Event::error) out.error_status = parser.error_status();
  return out;
}

Parsed parse(const std::string& bytes, const HttpLimits& limits = {}) { return parse_pieces({bytes}, limits); }

int status_for(const std::string& bytes, const HttpLimits& limits = {}) { return parse(bytes, limits).error_status; }

const std::string kPost =
    "POST /submit/../form%20data?x=1&y=two HTTP/1.1\r\nHost: example\r\nContent-Type: text/plain\r\n"
    "X-Tag: a\r\nx-tag: b\r\nContent-Length: 11\r\n\r\nhello world";

const std::string kChunked =
    "PUT /upload HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
    "5;name=value\r\nhello\r\n6\r\n world\r\n0\r\nTrailer: t\r\n\r\n";

void expect_post(const Request& request) {
  EXPECT_EQ(request.method, "POST");
  EXPECT_EQ(request.target, "/submit/../form%20data?x=1&y=two");
  EXPECT_EQ(request.path, "/form data");
  EXPECT_EQ(request.query, "x=1&y=two");
  EXPECT_EQ(request.version_major, 1);
  EXPECT_EQ(request.version_minor, 1);
  EXPECT_EQ(request.headers.get("content-type"), "text/plain");
  EXPECT_EQ(request.headers.get_all("X-TAG"), (std::vector<std::string_view>{"a", "b"}));
  EXPECT_EQ(request.body, "hello world");
}

TEST(RequestParser, ParsesLineHeadersAndBody) {
  const Parsed parsed = parse(kPost);
  ASSERT_EQ(parsed.requests.size(), 1u);
  expect_post(parsed.requests[0]);
  EXPECT_TRUE(parsed.keep_alive[0]);
  EXPECT_EQ(parsed.requests[0].query_param("y"), "two");
}

TEST(RequestParser, GivesTheSameRequestWhereverTheBytesAreSplit) {
  for (std::size_t split = 0; split <= kPost.size(); ++split) {
    const Parsed parsed = parse_pieces({kPost.substr(0, split), kPost.substr(split)});
    ASSERT_EQ(parsed.requests.size(), 1u) << "split at " << split;
    expect_post(parsed.requests[0]);
  }
}

TEST(RequestParser, GivesTheSameRequestFedOneByteAtATime) {
  std::vector<std::string> bytes;
  for (char c : kChunked) bytes.emplace_back(1, c);
  const Parsed parsed = parse_pieces(bytes);
  ASSERT_EQ(parsed.requests.size(), 1u);
  EXPECT_EQ(parsed.requests[0].body, "hello world");
}

TEST(RequestParser, DecodesChunkedBodiesWithExtensionsAndTrailers) {
  const Parsed parsed = parse(kChunked);
  ASSERT_EQ(parsed.requests.size(), 1u);
  EXPECT_EQ(parsed.requests[0].method, "PUT");
  EXPECT_EQ(parsed.requests[0].body, "hello world");
}

TEST(RequestParser, StopsAfterEachPipelinedRequest) {
  const std::string three = "GET /a HTTP/1.1\r\nHost: h\r\n\r\n" + kPost + "GET /c HTTP/1.1\r\nHost: h\r\n\r\n";
  RequestParser parser(HttpLimits{});
  std::string_view input = three;
  std::vector<std::string> paths;
  while (!input.empty()) {
    const auto result = parser.feed(input);
    ASSERT_NE(result.event, Event::error);
    input.remove_prefix(result.consumed);
    if (result.event == Event::request_ready) {
      paths.push_back(parser.request().path);
      if (paths.size() == 2) expect_post(parser.request());
      parser.next();
    }
  }
  EXPECT_EQ(paths, (std::vector<std::string>{"/a", "/form data", "/c"}));
}

TEST(RequestParser, FollowsKeepAliveRulesOfEachVersion) {
  const Parsed parsed = parse(
      "GET / HTTP/1.1\r\nHost: t\r\n\r\n"
      "GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"
      "GET / HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(parsed.keep_alive, (std::vector<bool>{true, true, false}));
  EXPECT_EQ(parse("GET / HTTP/1.0\r\n\r\n").keep_alive, std::vector<bool>{false});
}

TEST(RequestParser, AsksForContinueOnlyUntilTheBodyArrives) {
  RequestParser parser(HttpLimits{});
  const std::string head = "POST /x HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n";
  EXPECT_EQ(parser.feed(head).event, Event::need_more);
  EXPECT_TRUE(parser.take_continue_request());
  EXPECT_FALSE(parser.take_continue_request());  // once
  EXPECT_EQ(parser.feed("abc").event, Event::request_ready);

  RequestParser eager(HttpLimits{});
  EXPECT_EQ(eager.feed(head + "abc").event, Event::request_ready);
  EXPECT_FALSE(eager.take_continue_request());  // the body came with the headers
}

TEST(RequestParser, NormalisesPathsAndNeverClimbsAboveTheRoot) {
  const auto path_of = [](const std::string& target) {
    const Parsed parsed = parse("GET " + target + " HTTP/1.1\r\nHost: t\r\n\r\n");
    return parsed.requests.empty() ? "error " + std::to_string(parsed.error_status) : parsed.requests[0].path;
  };
  EXPECT_EQ(path_of("/a//b/./c/"), "/a/b/c/");
  EXPECT_EQ(path_of("/static/%2e%2e/%2E%2E/etc/passwd"), "/etc/passwd");
  EXPECT_EQ(path_of("/../../etc/passwd"), "/etc/passwd");
  EXPECT_EQ(path_of("/a/b/.."), "/a/");
  EXPECT_EQ(path_of("http://example.com/over/there?q"), "/over/there");
  EXPECT_EQ(path_of("http://example.com?a/b"), "/");  // the '/' belongs to the query
  EXPECT_EQ(path_of("/bad%zzescape"), "error 400");
  EXPECT_EQ(path_of("/nul%00byte"), "error 400");
}

TEST(RequestParser, AnswersMalformedInputWith400) {
  EXPECT_EQ(status_for("\x01\x02\x03 garbage\r\n\r\n"), 400);
  EXPECT_EQ(status_for("GET / HTTP/1.1\r\nHost: t\r\nBad Header\r\n\r\n"), 400);
  EXPECT_EQ(status_for("GET / HTTP/1.1\r\nHost: t\r\nContent-Length: abc\r\n\r\n"), 400);
  EXPECT_EQ(status_for("GET / HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"), 400);
}

TEST(RequestParser, RefusesRequestSmuggling) {
  EXPECT_EQ(status_for("POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"), 400);
  EXPECT_EQ(status_for("POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd"), 400);
}

TEST(RequestParser, AnswersUnknownMethodsAndCodingsWith501) {
  EXPECT_EQ(status_for("FROBNICATE / HTTP/1.1\r\nHost: t\r\n\r\n"), 501);
  EXPECT_EQ(status_for("POST / HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: gzip\r\n\r\n"), 400);  // chunked not last
  EXPECT_EQ(status_for("POST / HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n"), 501);
}

TEST(RequestParser, AnswersOtherVersionsWith505) {
  EXPECT_EQ(status_for("GET / HTTP/2.0\r\n\r\n"), 505);
  EXPECT_EQ(status_for("GET / HTTP/3.1\r\n\r\n"), 505);
  EXPECT_EQ(status_for("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"), 505);  // HTTP/2 prior knowledge
}

TEST(RequestParser, AnswersUnknownExpectationsWith417) {
  EXPECT_EQ(status_for("POST / HTTP/1.1\r\nHost: t\r\nExpect: teapot\r\nContent-Length: 1\r\n\r\nx"), 417);
}

TEST(RequestParser, EnforcesTheConfiguredLimits) {
  HttpLimits limits;
  limits.max_header_bytes = 1024;
  limits.max_uri_bytes = 100;
  limits.max_body_bytes = 10;
  EXPECT_EQ(status_for("GET /" + std::string(200, 'u') + " HTTP/1.1\r\nHost: t\r\n\r\n", limits), 414);
  EXPECT_EQ(status_for("GET / HTTP/1.1\r\nHost: t\r\nX-Big: " + std::string(2000, 'h') + "\r\n\r\n", limits), 431);
  std::string many = "GET / HTTP/1.1\r\nHost: t\r\n";  // fewer fields than the count limit, more bytes than allowed
  for (int i = 0; i < 60; ++i) many += "X-" + std::to_string(i) + ": " + std::string(20, 'v') + "\r\n";
  EXPECT_EQ(status_for(many + "\r\n", limits), 431);
  EXPECT_EQ(status_for("POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 11\r\n\r\nhello world", limits), 413);
  EXPECT_EQ(status_for("POST / HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n6\r\nhello \r\n5\r\nworld\r\n0\r\n\r\n",
                       limits),
            413);
  EXPECT_EQ(status_for("POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 10\r\n\r\n0123456789", limits), 0);  // exactly the limit
}

// The request line and `count` fields, without the blank line that ends them.
// `count` fields, the first of them Host.
std::string header_section_with_fields(int count) {
  std::string section = "GET / HTTP/1.1\r\nHost: t\r\n";
  for (int i = 1; i < count; ++i) section += "X-" + std::to_string(i) + ": v\r\n";
  return section;
}

TEST(RequestParser, AnswersMoreHeaderFieldsThanTheCountLimitWith431) {
  EXPECT_EQ(HttpLimits{}.max_header_count, 100u);
  EXPECT_EQ(status_for(header_section_with_fields(100) + "\r\n"), 0);
  EXPECT_EQ(status_for(header_section_with_fields(101) + "\r\n"), 431);
  HttpLimits limits;
  limits.max_header_count = 3;
  EXPECT_EQ(status_for(header_section_with_fields(3) + "\r\n", limits), 0);
  EXPECT_EQ(status_for(header_section_with_fields(4) + "\r\n", limits), 431);
  // A repeated name is another field.
  EXPECT_EQ(status_for("GET / HTTP/1.1\r\nHost: t\r\nX-A: 1\r\nX-A: 2\r\nx-a: 3\r\nX-A: 4\r\n\r\n", limits), 431);
}

TEST(RequestParser, RefusesTheFieldPastTheCountLimitAsItArrives) {
  HttpLimits limits;
  limits.max_header_count = 10;
  RequestParser parser(limits);
  // Why no blank line: the limit must bite while fields arrive, so a client
  // cannot make the server store a huge header section before it is refused.
  const std::string section = header_section_with_fields(11) + "X-Never: stored\r\n";
  const auto result = parser.feed(section);
  EXPECT_EQ(result.event, Event::error);
  EXPECT_EQ(parser.error_status(), 431);
  EXPECT_EQ(parser.error_detail(), "too many header fields");
  EXPECT_EQ(parser.request().headers.size(), 10u);
}

TEST(RequestParser, CountsFieldsPerRequestOnAKeepAliveConnection) {
  HttpLimits limits;
  limits.max_header_count = 3;
  const std::string request = header_section_with_fields(3) + "\r\n";
  const Parsed parsed = parse(request + request + request, limits);
  EXPECT_EQ(parsed.error_status, 0);
  EXPECT_EQ(parsed.requests.size(), 3u);
}

TEST(RequestParser, ReportsARequestCutOffByEof) {
  EXPECT_EQ(status_for("POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 10\r\n\r\nabc"), 400);
  EXPECT_EQ(status_for("GET / HTTP/1.1\r\nHost: t\r\nHost"), 400);
  EXPECT_EQ(status_for("GET / HTTP/1.1\r\nHost: t\r\n\r\n"), 0);  // a complete request then EOF is fine
}

TEST(RequestParser, ClosesAfterAnUpgradeRequest) {
  const Parsed parsed = parse("GET /ws HTTP/1.1\r\nHost: t\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n");
  ASSERT_EQ(parsed.requests.size(), 1u);
  EXPECT_FALSE(parsed.keep_alive[0]);
}

}  // namespace
}  // namespace tiffany::http

namespace tiffany::http {
namespace {

// Every way of cutting `bytes` in two.
std::vector<std::vector<std::string>> every_split(const std::string& bytes) {
  std::vector<std::vector<std::string>> splits;
  for (std::size_t at = 1; at < bytes.size(); ++at) splits.push_back({bytes.substr(0, at), bytes.substr(at)});
  return splits;
}

TEST(RequestParserConformance, RejectsObsFoldHoweverTheBytesAreCut) {
  const std::vector<std::string> folded = {
      "GET / HTTP/1.1\r\nHost: t\r\nX-A: a\r\n\tTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\nabc",
      "GET / HTTP/1.1\r\nHost: t\r\nX-A: a\r\n  b\r\n\r\n",
      "GET / HTTP/1.1\r\nHost: t\r\nX-A:\r\n b\r\n\r\n",
      "GET / HTTP/1.1\r\nHost: t\r\nX-A: \r\n \t b\r\n\r\n",  // found by the fuzzer: blanks, then a fold
  };
  for (const std::string& request : folded) {
    EXPECT_EQ(status_for(request), 400) << request;
    for (const auto& pieces : every_split(request)) {
      EXPECT_EQ(parse_pieces(pieces).error_status, 400) << request << " cut after " << pieces[0].size();
    }
    std::vector<std::string> bytes;  // and a byte at a time
    for (const char c : request) bytes.emplace_back(1, c);
    EXPECT_EQ(parse_pieces(bytes).error_status, 400) << request;
  }
}

TEST(RequestParserConformance, ValuesWithInnerBlanksAreNeverTakenForAFold) {
  const std::string request =
      "GET / HTTP/1.1\r\nHost: t\r\nX-A: a b\t c\r\nX-B:  spaced  \r\nContent-Length: 2\r\n\r\nok";
  for (const auto& pieces : every_split(request)) {
    const Parsed parsed = parse_pieces(pieces);
    ASSERT_EQ(parsed.error_status, 0) << "cut after " << pieces[0].size();
    ASSERT_EQ(parsed.requests.size(), 1u);
    EXPECT_EQ(parsed.requests[0].headers.get("X-A"), "a b\t c");
  }
  std::vector<std::string> bytes;
  for (const char c : request) bytes.emplace_back(1, c);
  EXPECT_EQ(parse_pieces(bytes).error_status, 0);
}

TEST(RequestParserConformance, Http11NeedsExactlyOneValidHost) {
  EXPECT_EQ(status_for("GET / HTTP/1.1\r\n\r\n"), 400);
  EXPECT_EQ(status_for("GET / HTTP/1.1\r\nHost: a\r\nHost: a\r\n\r\n"), 400);
  EXPECT_EQ(status_for("GET / HTTP/1.1\r\nHost: a\r\nhost: b\r\n\r\n"), 400);
  EXPECT_EQ(status_for("GET / HTTP/1.1\r\nHost:\r\n\r\n"), 400);
  EXPECT_EQ(status_for("GET / HTTP/1.1\r\nHost: a b\r\n\r\n"), 400);
  EXPECT_EQ(status_for("GET / HTTP/1.1\r\nHost: user@a\r\n\r\n"), 400);
  EXPECT_EQ(status_for("GET / HTTP/1.1\r\nHost: a/b\r\n\r\n"), 400);
  EXPECT_EQ(status_for("GET / HTTP/1.1\r\nHost: a:80x\r\n\r\n"), 400);
  EXPECT_EQ(status_for("GET / HTTP/1.1\r\nHost: [::1\r\n\r\n"), 400);
  EXPECT_EQ(status_for("GET / HTTP/1.1\r\nHost: example.com:8080\r\n\r\n"), 0);
  EXPECT_EQ(status_for("GET / HTTP/1.1\r\nHost: [::1]:8080\r\n\r\n"), 0);
  EXPECT_EQ(status_for("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"), 0);
  EXPECT_EQ(status_for("GET / HTTP/1.1\r\nHost: xn--bcher-kva.example\r\n\r\n"), 0);
  // HTTP/1.0 may leave it out, but not send two or an invalid one.
  EXPECT_EQ(status_for("GET / HTTP/1.0\r\n\r\n"), 0);
  EXPECT_EQ(status_for("GET / HTTP/1.0\r\nHost: a\r\nHost: b\r\n\r\n"), 400);
  EXPECT_EQ(status_for("GET / HTTP/1.0\r\nHost: a b\r\n\r\n"), 400);
  // A Host in a trailer section is not a second Host.
  EXPECT_EQ(status_for("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nHost: b\r\n\r\n"), 0);
}

TEST(RequestParserConformance, JudgesTheHeaderSectionBeforeWaitingForTheBody) {
  RequestParser parser(HttpLimits{});
  const auto result = parser.feed("POST / HTTP/1.1\r\nContent-Length: 10\r\n\r\n");
  EXPECT_EQ(result.event, Event::error);
  EXPECT_EQ(parser.error_status(), 400);
  EXPECT_EQ(parser.rejected().method, "POST");
  EXPECT_EQ(parser.rejected().target, "/");
}

TEST(RequestParserConformance, RejectsFieldNamesThatAreNotTokens) {
  EXPECT_EQ(status_for("GET / HTTP/1.1\r\nHost : t\r\n\r\n"), 400);
  EXPECT_EQ(status_for("GET / HTTP/1.1\r\nHost: t\r\nContent-Length : 0\r\n\r\n"), 400);
  EXPECT_EQ(status_for("GET / HTTP/1.1\r\nHost: t\r\nContent Length: 5\r\n\r\nhello"), 400);
  EXPECT_EQ(status_for("GET / HTTP/1.1\r\nHost: t\r\n: empty\r\n\r\n"), 400);
  EXPECT_EQ(status_for("GET / HTTP/1.1\r\nHost: t\r\nX\x01: a\r\n\r\n"), 400);
  EXPECT_EQ(status_for("GET / HTTP/1.1\r\n Host: t\r\n\r\n"), 400);
}

TEST(RequestParserConformance, RejectsABareCr) {
  EXPECT_EQ(status_for("GET / HTTP/1.1\r\nHost: t\rX: y\r\n\r\n"), 400);
  EXPECT_EQ(status_for("GET / HTTP/1.1\r\nHost: t\r\n\r\r\n"), 400);
  EXPECT_EQ(status_for("GET / HTTP/1.1\r\nHost: t\r\n\rX: y\r\n\r\n"), 400);
  EXPECT_EQ(status_for("GET / HTTP/1.1\rHost: t\r\n\r\n"), 400);
  EXPECT_EQ(status_for("GET /a\rb HTTP/1.1\r\nHost: t\r\n\r\n"), 400);
  EXPECT_EQ(status_for("POST / HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n3\rabc\r\n0\r\n\r\n"), 400);
}

TEST(RequestParserConformance, MalformedRequestLinesAre400AndUnknownMethods501) {
  EXPECT_EQ(status_for("BREW /pot HTTP/1.1\r\nHost: t\r\n\r\n"), 501);
  EXPECT_EQ(status_for("get / HTTP/1.1\r\nHost: t\r\n\r\n"), 501);  // methods are case-sensitive
  EXPECT_EQ(status_for("BREW /pot HTTP/1.1\r\n"), 501);               // judged before the headers
  EXPECT_EQ(status_for("BREW\r\n\r\n"), 400);
  EXPECT_EQ(status_for("BREW /pot\r\n\r\n"), 400);
  EXPECT_EQ(status_for("BREW /pot HTTQ/1.1\r\n\r\n"), 400);
  EXPECT_EQ(status_for("BREW /pot HTTP/1.1 extra\r\n\r\n"), 400);
  EXPECT_EQ(status_for("GE(T / HTTP/1.1\r\n\r\n"), 400);
  EXPECT_EQ(status_for("GET\t/ HTTP/1.1\r\nHost: t\r\n\r\n"), 400);
  EXPECT_EQ(status_for("GET /\t HTTP/1.1\r\nHost: t\r\n\r\n"), 400);
  EXPECT_EQ(status_for("GET / HTTP/1.1 \r\nHost: t\r\n\r\n"), 400);
  EXPECT_EQ(status_for("GET / http/1.1\r\nHost: t\r\n\r\n"), 400);
  EXPECT_EQ(status_for("GET / HTTP/1.10\r\nHost: t\r\n\r\n"), 400);
  EXPECT_EQ(status_for("GET /\xc3\xa9 HTTP/1.1\r\nHost: t\r\n\r\n"), 400);  // raw non-ASCII in the target
  RequestParser parser(HttpLimits{});
  (void)parser.feed("BREW /pot HTTP/1.1\r\n\r\n");
  EXPECT_EQ(parser.rejected().method, "BREW");  // for the access log
  EXPECT_EQ(parser.rejected().target, "/pot");
}

TEST(RequestParserConformance, AHigherMinorVersionIsAnsweredAs11AndOtherMajorsGet505) {
  const Parsed parsed = parse("GET / HTTP/1.2\r\nHost: t\r\n\r\n");
  ASSERT_EQ(parsed.requests.size(), 1u);
  EXPECT_EQ(parsed.requests[0].version_minor, 1);
  EXPECT_TRUE(parsed.keep_alive[0]);
  EXPECT_EQ(status_for("GET / HTTP/1.9\r\nHost: t\r\n\r\n"), 0);
  EXPECT_EQ(status_for("GET / HTTP/2.0\r\nHost: t\r\n\r\n"), 505);
  EXPECT_EQ(status_for("GET / HTTP/3.0\r\nHost: t\r\n\r\n"), 505);
  EXPECT_EQ(status_for("GET / HTTP/0.9\r\nHost: t\r\n\r\n"), 505);
}

TEST(RequestParserConformance, RefusesFramingItCannotTrust) {
  EXPECT_EQ(status_for("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\nConnection: keep-alive\r\n\r\n0\r\n\r\n"), 400);
  EXPECT_EQ(status_for("POST / HTTP/1.1\r\nHost: t\r\nTransfer-Encoding:\r\nContent-Length: 3\r\n\r\nabc"), 400);
  EXPECT_EQ(status_for("POST / HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: \r\n\r\n"), 400);
  EXPECT_EQ(status_for("POST / HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked, gzip\r\n\r\n"), 400);
  EXPECT_EQ(status_for("POST / HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: identity\r\n\r\n"), 400);
  EXPECT_EQ(status_for("POST / HTTP/1.1\r\nHost: t\r\nContent-Length: +3\r\n\r\nabc"), 400);
  EXPECT_EQ(status_for("POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 3, 3\r\n\r\nabc"), 400);
  EXPECT_EQ(status_for("POST / HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffff\r\n"), 400);
  EXPECT_EQ(status_for("POST / HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n10000000000000000\r\n"), 400);
  EXPECT_EQ(status_for("POST / HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n3 \r\nabc\r\n0\r\n\r\n"), 400);
}

TEST(RequestParserConformance, AChunkLargerThanTheBodyLimitIsRefusedAtItsSizeLine) {
  HttpLimits limits;
  limits.max_body_bytes = 10;
  RequestParser parser(limits);
  const auto result = parser.feed("POST / HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n");
  EXPECT_EQ(result.event, Event::error);
  EXPECT_EQ(parser.error_status(), 413);
}

TEST(RequestParserConformance, OnlyOptionsMayUseTheAsteriskForm) {
  EXPECT_EQ(status_for("GET * HTTP/1.1\r\nHost: t\r\n\r\n"), 400);
  EXPECT_EQ(status_for("POST * HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n"), 400);
  const Parsed parsed = parse("OPTIONS * HTTP/1.1\r\nHost: t\r\n\r\n");
  ASSERT_EQ(parsed.requests.size(), 1u);
  EXPECT_EQ(parsed.requests[0].path, "*");
}

TEST(RequestParserConformance, AbsoluteFormMayNotCarryUserinfo) {
  EXPECT_EQ(status_for("GET http://user@example.com/ HTTP/1.1\r\nHost: example.com\r\n\r\n"), 400);
  EXPECT_EQ(status_for("GET http://user:pw@example.com/ HTTP/1.1\r\nHost: example.com\r\n\r\n"), 400);
  EXPECT_EQ(status_for("GET http:///x HTTP/1.1\r\nHost: example.com\r\n\r\n"), 400);
  const Parsed parsed = parse("GET http://example.com:8080/a?b HTTP/1.1\r\nHost: other\r\n\r\n");
  ASSERT_EQ(parsed.requests.size(), 1u);
  EXPECT_EQ(parsed.requests[0].path, "/a");
  EXPECT_EQ(parsed.requests[0].query, "b");
}

TEST(RequestParserConformance, IgnoresEmptyLinesBeforeARequest) {
  const Parsed parsed = parse("\r\n\r\nGET / HTTP/1.1\r\nHost: t\r\n\r\n");
  EXPECT_EQ(parsed.error_status, 0);
  EXPECT_EQ(parsed.requests.size(), 1u);
}

}  // namespace
}  // namespace tiffany::http

namespace tiffany::http {
namespace {

TEST(RequestParserConformance, EmptyValuesParseTheSameHoweverTheBytesAreCut) {
  // Found by the fuzzer: an empty value, then a value right after its colon.
  const std::string request =
      "GET /x HTTP/1.1\r\nHost: 127.0.0.1:51408\r\nRange:\r\nUser-Agent:9.0-DEV\r\nAccept: */*\r\n\r\n";
  const Parsed whole = parse(request);
  ASSERT_EQ(whole.error_status, 0);
  for (std::size_t a = 1; a < request.size(); ++a) {
    for (std::size_t b = a + 1; b < request.size(); ++b) {
      const Parsed cut = parse_pieces({request.substr(0, a), request.substr(a, b - a), request.substr(b)});
      ASSERT_EQ(cut.error_status, 0) << "cut at " << a << " and " << b;
      ASSERT_EQ(cut.requests.size(), 1u);
      EXPECT_EQ(cut.requests[0].headers.get("User-Agent"), "9.0-DEV");
    }
  }
}

}  // namespace
}  // namespace tiffany::http
