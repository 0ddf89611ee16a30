// Referenced whole bodies (Response::set_body_reference) through HttpConnection: sent intact whole, as a slice,
// for HEAD, in pipelined batches, gathered beside the heads or copied on streams that do not gather (TLS), and
// alive after their owner let go of them.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include <tiffany/handlers/handler.hpp>

#include "http/engine/compression/compression_settings.hpp"
#include "server/http/http_site.hpp"
#include "support/decode_content.hpp"
#include "support/scripted_stream.hpp"
#include "unit/server/http/serve_scripted.hpp"

namespace tiffany::http {
namespace {

using testing::ScriptedStream;

std::string patterned(std::size_t size, char seed) {
  std::string text(size, '\0');
  for (std::size_t i = 0; i < size; ++i) text[i] = static_cast<char>(seed + static_cast<char>(i % 53));
  return text;
}

const std::string kBig = patterned(12 * 1024, 'A');  // like a precompressed page
const std::string kSmall = patterned(100, 'a');      // under the floor: copied

// Answers with a referenced body: the whole of its bytes, or [from, from + length) of them.
// With `let_go`, it drops its own share at once and makes new bytes for the
// next request, as a cache evicting the entry would: only the response keeps them.
class References final : public Handler {
 public:
  References(std::string bytes, std::size_t from, std::size_t length, bool let_go)
      : text_(std::move(bytes)), from_(from), length_(length), let_go_(let_go) {
    content_ = std::make_shared<const std::string>(text_);
  }
  Task<void> handle(Request&, Response& response) override {
    if (!content_) content_ = std::make_shared<const std::string>(text_);
    response.headers.add("Content-Type", "text/html");
    response.set_content_length(length_);
    response.set_body_reference(content_, std::string_view(*content_).substr(from_, length_));
    if (let_go_) content_.reset();
    co_return;
  }

 private:
  std::string text_;
  std::size_t from_;
  std::size_t length_;
  bool let_go_;
  std::shared_ptr<const std::string> content_;
};

class Copies final : public Handler {
 public:
  Task<void> handle(Request&, Response& response) override {
    response.body = "copied";
    co_return;
  }
};

// A referenced body a later step replaces by assigning `body`.
class ReplacedLater final : public Handler {
 public:
  Task<void> handle(Request&, Response& response) override {
    response.set_body_reference(content_, *content_);
    response.body = "replaced";
    co_return;
  }

 private:
  std::shared_ptr<const std::string> content_ = std::make_shared<const std::string>(kBig);
};

HttpSite make_site() {
  HttpSite site;
  auto settings = std::make_shared<CompressionSettings>();
  settings->min_bytes = 100;
  site.compression.push_back(settings);
  site.router.add({"GET"}, "/whole", std::make_shared<References>(kBig, 0, kBig.size(), false));
  site.router.add({"GET"}, "/slice", std::make_shared<References>(kBig, 1000, 5000, false));
  site.router.add({"GET"}, "/small", std::make_shared<References>(kSmall, 0, kSmall.size(), false));
  site.router.add({"GET"}, "/evicted", std::make_shared<References>(kBig, 0, kBig.size(), true));
  site.router.add({"GET"}, "/copied", std::make_shared<Copies>());
  site.router.add({"GET"}, "/replaced", std::make_shared<ReplacedLater>());
  site.router.add({"GET"}, "/compressed", std::make_shared<References>(kBig, 0, kBig.size(), false), "handler",
                  nullptr, settings.get());
  return site;
}

std::unique_ptr<ScriptedStream> serve(std::vector<std::string> reads, bool gathers) {
  static const HttpSite site = make_site();
  return tiffany::testing::serve_scripted(site, std::move(reads), gathers);
}

std::string get(const std::string& path, const std::string& method = "GET", const std::string& extra = "") {
  return method + " " + path + " HTTP/1.1\r\nHost: t\r\n" + extra + "\r\n";
}

struct Parsed {
  std::string head;
  std::string body;
};

// Splits the responses of `text` by Content-Length; `heads_only` for answers to HEAD.
std::vector<Parsed> responses(std::string text, bool heads_only = false) {
  std::vector<Parsed> all;
  while (!text.empty()) {
    const auto head_end = text.find("\r\n\r\n");
    if (head_end == std::string::npos) break;
    Parsed parsed;
    parsed.head = text.substr(0, head_end + 2);
    const auto at = parsed.head.find("Content-Length: ");
    const std::size_t length = heads_only || at == std::string::npos ? 0 : std::stoul(parsed.head.substr(at + 16));
    parsed.body = text.substr(head_end + 4, length);
    text.erase(0, head_end + 4 + length);
    all.push_back(std::move(parsed));
  }
  return all;
}

class ReferencedBody : public ::testing::TestWithParam<bool> {};  // the stream gathers (a socket) or not (TLS)

std::string stream_kind(const ::testing::TestParamInfo<bool>& param) { return param.param ? "gathering" : "copying"; }

INSTANTIATE_TEST_SUITE_P(Streams, ReferencedBody, ::testing::Values(true, false), stream_kind);

TEST_P(ReferencedBody, IsSentWholeAndIntactInOneWrite) {
  const auto stream = serve({get("/whole")}, GetParam());
  ASSERT_EQ(stream->writes.size(), 1u);
  const auto parsed = responses(stream->writes[0]);
  ASSERT_EQ(parsed.size(), 1u);
  EXPECT_NE(parsed[0].head.find("Content-Length: 12288\r\n"), std::string::npos) << parsed[0].head;
  EXPECT_EQ(parsed[0].body, kBig);
  if (GetParam()) {
    EXPECT_EQ(stream->gathered_pieces, (std::vector<std::size_t>{2}));  // the head, then the bytes where they are
  } else {
    EXPECT_TRUE(stream->gathered_pieces.empty());  // copied beside the head: one plain write
  }
}

TEST_P(ReferencedBody, ASliceIsSentAsTheSliceOnly) {
  const auto stream = serve({get("/slice")}, GetParam());
  const auto parsed = responses(stream->written());
  ASSERT_EQ(parsed.size(), 1u);
  EXPECT_NE(parsed[0].head.find("Content-Length: 5000\r\n"), std::string::npos) << parsed[0].head;
  EXPECT_EQ(parsed[0].body, kBig.substr(1000, 5000));
}

TEST_P(ReferencedBody, HeadGetsTheLengthWithoutTheBytes) {
  const auto stream = serve({get("/whole", "HEAD") + get("/copied")}, GetParam());
  ASSERT_EQ(stream->writes.size(), 1u);
  const std::string& out = stream->writes[0];
  EXPECT_EQ(out.find(kBig.substr(0, 64)), std::string::npos);
  const auto head_end = out.find("\r\n\r\n");
  ASSERT_NE(head_end, std::string::npos);
  EXPECT_NE(out.substr(0, head_end).find("Content-Length: 12288"), std::string::npos) << out;
  EXPECT_TRUE(out.substr(head_end + 4).starts_with("HTTP/1.1 200 OK\r\n")) << out;  // the next answer follows at once
  EXPECT_TRUE(out.ends_with("\r\n\r\ncopied")) << out;
}

TEST_P(ReferencedBody, PipelinedAnswersGoOutInOrderInOneWrite) {
  const std::vector<std::string> paths = {"/whole", "/copied", "/slice", "/small", "/whole", "/evicted", "/copied"};
  std::string read;
  for (const std::string& path : paths) read += get(path);
  const auto stream = serve({read}, GetParam());
  ASSERT_EQ(stream->writes.size(), 1u);
  const auto parsed = responses(stream->writes[0]);
  ASSERT_EQ(parsed.size(), paths.size());
  const std::vector<std::string> expected = {kBig, "copied", kBig.substr(1000, 5000), kSmall, kBig, kBig, "copied"};
  for (std::size_t i = 0; i < paths.size(); ++i) {
    SCOPED_TRACE(paths[i]);
    EXPECT_TRUE(parsed[i].head.starts_with("HTTP/1.1 200 OK\r\n")) << parsed[i].head;
    EXPECT_EQ(parsed[i].body, expected[i]);
  }
  if (GetParam()) {
    // The four large referenced bodies each a piece of their own, between
    // the pieces of buffered heads and small, copied bodies around them: 4 + 5.
    EXPECT_EQ(stream->gathered_pieces, (std::vector<std::size_t>{9}));
  }
}

TEST_P(ReferencedBody, OutlivesItsOwnersOtherShares) {
  // The handler lets go of the bytes as soon as the response references
  // them (a cache evicting the entry): the response's share keeps them until
  // written. Under ASan a freed buffer would be caught here.
  const auto stream = serve({get("/evicted") + get("/evicted"), get("/evicted")}, GetParam());
  const auto parsed = responses(stream->written());
  ASSERT_EQ(parsed.size(), 3u);
  for (const Parsed& response : parsed) EXPECT_EQ(response.body, kBig);
}

TEST_P(ReferencedBody, ABodyAssignedLaterReplacesTheReference) {
  const auto stream = serve({get("/replaced")}, GetParam());
  const auto parsed = responses(stream->written());
  ASSERT_EQ(parsed.size(), 1u);
  EXPECT_NE(parsed[0].head.find("Content-Length: 8\r\n"), std::string::npos) << parsed[0].head;
  EXPECT_EQ(parsed[0].body, "replaced");
}

TEST_P(ReferencedBody, IsCompressedFromTheReferencedBytes) {
  const auto stream = serve({get("/compressed", "GET", "Accept-Encoding: gzip\r\n")}, GetParam());
  const auto parsed = responses(stream->written());
  ASSERT_EQ(parsed.size(), 1u);
  EXPECT_NE(parsed[0].head.find("Content-Encoding: gzip\r\n"), std::string::npos) << parsed[0].head;
  EXPECT_EQ(testing::decode_content("gzip", parsed[0].body), kBig);
}

}  // namespace
}  // namespace tiffany::http
