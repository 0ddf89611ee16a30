// static with `precompressed`: siblings chosen by Accept-Encoding, with their own validators and ranges.
#include "handlers/builtin/precompressed_sibling.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "handler_harness.hpp"
#include "handlers/builtin/static_handler.hpp"

namespace tiffany::testing {
namespace {

namespace fs = std::filesystem;

class PrecompressedTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "tiffany-precompressed-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    base_ = pattern;
    fs::create_directories(base_ + "/site/dir.js.br");  // a folder where a sibling would be: ignored
    write("site/app.js", "console.log('identity');");
    write("site/app.js.gz", "GZIP BYTES");
    write("site/app.js.br", "BROTLI BYTES");
    write("site/dir.js", "only identity");
    write("site/style.css", "body{}");
    write("site/leak.css", "identity of leak");
    write("outside.gz", "outside the root");
    fs::create_symlink(base_ + "/outside.gz", base_ + "/site/leak.css.gz");
    big_sibling_.resize(200 * 1024);
    for (std::size_t i = 0; i < big_sibling_.size(); ++i) big_sibling_[i] = static_cast<char>(i * 7);
    write("site/big.svg", "<svg/>");
    write("site/big.svg.zst", big_sibling_);
    handler_ = make(R"({"root": "site", "precompressed": true})");
  }
  void TearDown() override { fs::remove_all(base_); }

  std::unique_ptr<StaticHandler> make(const std::string& json) {
    params_ = params_from(json);
    return std::make_unique<StaticHandler>(HandlerParams(params_, base_));
  }
  void write(const std::string& name, const std::string& content) {
    std::ofstream(base_ + "/" + name, std::ios::binary) << content;
  }
  std::unique_ptr<Outcome> get(const std::string& path, std::vector<std::pair<std::string, std::string>> headers = {},
                               const std::string& method = "GET", StaticHandler* handler = nullptr) {
    request_ = make_request(method, path);
    for (auto& [name, value] : headers) request_.headers.add(name, value);
    return run_handler(handler != nullptr ? *handler : *handler_, request_);
  }
  static std::string field(const Outcome& outcome, const std::string& name) {
    return std::string(outcome.response.headers.get(name).value_or("(none)"));
  }

  std::string base_;
  std::string big_sibling_;
  picojson::object params_;
  std::unique_ptr<StaticHandler> handler_;
  http::Request request_;
};

TEST_F(PrecompressedTest, AnAcceptedSiblingIsServedUnderTheOriginalsType) {
  const auto identity = get("/app.js");
  const auto gzip = get("/app.js", {{"Accept-Encoding", "gzip"}});
  EXPECT_EQ(gzip->response.status, 200);
  EXPECT_EQ(gzip->body(), "GZIP BYTES");
  EXPECT_EQ(field(*gzip, "Content-Encoding"), "gzip");
  EXPECT_EQ(field(*gzip, "Content-Type"), "text/javascript; charset=utf-8");
  EXPECT_EQ(field(*gzip, "Vary"), "Accept-Encoding");
  EXPECT_NE(field(*gzip, "ETag"), field(*identity, "ETag"));  // its own representation, its own tag
  EXPECT_EQ(gzip->response.content_length(), 10u);
}

TEST_F(PrecompressedTest, TheClientsQValuesThenTheConfiguredOrderChoose) {
  EXPECT_EQ(get("/app.js", {{"Accept-Encoding", "gzip, br"}})->body(), "BROTLI BYTES");
  EXPECT_EQ(get("/app.js", {{"Accept-Encoding", "gzip, br;q=0.5"}})->body(), "GZIP BYTES");
  EXPECT_EQ(get("/app.js", {{"Accept-Encoding", "zstd"}})->body(), "console.log('identity');");  // no .zst
  EXPECT_EQ(get("/app.js", {{"Accept-Encoding", "zstd, gzip"}})->body(), "GZIP BYTES");
  const auto gzip_first = make(R"({"root": "site", "precompressed": ["gzip", "br"]})");
  EXPECT_EQ(get("/app.js", {{"Accept-Encoding", "gzip, br"}}, "GET", gzip_first.get())->body(), "GZIP BYTES");
}

TEST_F(PrecompressedTest, WithoutAnAcceptedCodingTheFileItselfIsServedWithVary) {
  for (const char* accept : {"", "identity", "deflate", "gzip;q=0, br;q=0", "gzip;q=bad"}) {
    const auto outcome = get("/app.js", {{"Accept-Encoding", accept}});
    EXPECT_EQ(outcome->body(), "console.log('identity');") << accept;
    EXPECT_EQ(field(*outcome, "Content-Encoding"), "(none)") << accept;
    EXPECT_EQ(field(*outcome, "Vary"), "Accept-Encoding") << accept;
  }
}

TEST_F(PrecompressedTest, OffByDefault) {
  const auto plain = make(R"({"root": "site"})");
  const auto outcome = get("/app.js", {{"Accept-Encoding", "gzip, br"}}, "GET", plain.get());
  EXPECT_EQ(outcome->body(), "console.log('identity');");
  EXPECT_EQ(field(*outcome, "Vary"), "(none)");
}

TEST_F(PrecompressedTest, RangesApplyToTheEncodedRepresentation) {
  const auto outcome = get("/app.js", {{"Accept-Encoding", "gzip"}, {"Range", "bytes=5-9"}});
  EXPECT_EQ(outcome->response.status, 206);
  EXPECT_EQ(outcome->body(), "BYTES");
  EXPECT_EQ(field(*outcome, "Content-Range"), "bytes 5-9/10");
  EXPECT_EQ(field(*outcome, "Content-Encoding"), "gzip");
  // If-Range naming the sibling's tag keeps the range; the identity tag does not match it.
  const std::string gzip_tag = field(*get("/app.js", {{"Accept-Encoding", "gzip"}}), "ETag");
  const std::string identity_tag = field(*get("/app.js"), "ETag");
  EXPECT_EQ(get("/app.js", {{"Accept-Encoding", "gzip"}, {"Range", "bytes=0-3"}, {"If-Range", gzip_tag}})->body(),
            "GZIP");
  EXPECT_EQ(
      get("/app.js", {{"Accept-Encoding", "gzip"}, {"Range", "bytes=0-3"}, {"If-Range", identity_tag}})->body(),
      "GZIP BYTES");
}

TEST_F(PrecompressedTest, ConditionalRequestsCompareTheSiblingsValidators) {
  const std::string gzip_tag = field(*get("/app.js", {{"Accept-Encoding", "gzip"}}), "ETag");
  const std::string identity_tag = field(*get("/app.js"), "ETag");
  const auto not_modified = get("/app.js", {{"Accept-Encoding", "gzip"}, {"If-None-Match", gzip_tag}});
  EXPECT_EQ(not_modified->response.status, 304);
  EXPECT_EQ(field(*not_modified, "ETag"), gzip_tag);
  EXPECT_EQ(field(*not_modified, "Vary"), "Accept-Encoding");
  EXPECT_EQ(field(*not_modified, "Content-Encoding"), "(none)");
  // The identity file's tag does not validate the gzip representation, nor the other way round.
  EXPECT_EQ(get("/app.js", {{"Accept-Encoding", "gzip"}, {"If-None-Match", identity_tag}})->response.status, 200);
  EXPECT_EQ(get("/app.js", {{"If-None-Match", gzip_tag}})->response.status, 200);
}

TEST_F(PrecompressedTest, HeadGetsTheSameHeaderFieldsAsGet) {
  const auto head = get("/app.js", {{"Accept-Encoding", "br"}}, "HEAD");
  const auto get_answer = get("/app.js", {{"Accept-Encoding", "br"}});
  EXPECT_EQ(head->body(), "");
  for (const char* name : {"Content-Encoding", "Content-Type", "Vary", "ETag"}) {
    EXPECT_EQ(field(*head, name), field(*get_answer, name)) << name;
  }
  EXPECT_EQ(head->response.content_length(), get_answer->response.content_length());
}

TEST_F(PrecompressedTest, SiblingsThatAreNotRegularFilesBeneathTheRootAreIgnored) {
  EXPECT_EQ(get("/dir.js", {{"Accept-Encoding", "br"}})->body(), "only identity");
  const auto leak = get("/leak.css", {{"Accept-Encoding", "gzip"}});
  EXPECT_EQ(leak->response.status, 200);
  EXPECT_EQ(leak->body(), "identity of leak");
}

TEST_F(PrecompressedTest, ALargeSiblingIsStreamedFromTheFile) {
  const auto outcome = get("/big.svg", {{"Accept-Encoding", "zstd"}});
  EXPECT_EQ(outcome->response.status, 200);
  EXPECT_FALSE(outcome->streamed.empty());  // through send_file, not a copy in memory
  EXPECT_EQ(outcome->body(), big_sibling_);
  EXPECT_EQ(field(*outcome, "Content-Type"), "image/svg+xml");
  EXPECT_EQ(field(*outcome, "Content-Encoding"), "zstd");
}

TEST_F(PrecompressedTest, BadValuesAreRefusedNamingTheKey) {
  for (const char* json : {R"({"root": "site", "precompressed": "gzip"})", R"({"root": "site", "precompressed": []})",
                           R"({"root": "site", "precompressed": ["deflate"]})",
                           R"({"root": "site", "precompressed": ["br", "br"]})"}) {
    try {
      make(json);
      ADD_FAILURE() << "accepted " << json;
    } catch (const ParamError& e) {
      EXPECT_EQ(e.key(), "precompressed") << json;
    }
  }
}

}  // namespace
}  // namespace tiffany::testing
