// static: files, folders, validators, ranges, streaming and the root boundary.
#include "handlers/builtin/static_handler.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <ctime>
#include <thread>

#include <tiffany/http/http_date.hpp>

#include "handler_harness.hpp"
#include "handlers/builtin/byte_range.hpp"

namespace tiffany::testing {
namespace {

namespace fs = std::filesystem;

class StaticHandlerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "tiffany-static-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    base_ = pattern;
    fs::create_directories(base_ + "/site/docs");
    fs::create_directories(base_ + "/site/empty");
    write("site/index.html", "<h1>home</h1>");
    write("site/style.css", "body{}");
    write("site/docs/index.html", "docs");
    write("secret.txt", "outside the root");
    big_.resize(200 * 1024);
    for (std::size_t i = 0; i < big_.size(); ++i) big_[i] = static_cast<char>('a' + i % 23);
    write("site/big.bin", big_);
    fs::create_symlink(base_ + "/secret.txt", base_ + "/site/escape");
    fs::create_symlink("style.css", base_ + "/site/alias.css");
    const auto params = params_from(R"({"root": "site"})");
    handler_ = std::make_unique<StaticHandler>(HandlerParams(params, base_));
  }
  void TearDown() override { fs::remove_all(base_); }

  void write(const std::string& name, const std::string& content) {
    std::ofstream(base_ + "/" + name, std::ios::binary) << content;
  }

  std::unique_ptr<Outcome> get(const std::string& path, std::vector<std::pair<std::string, std::string>> headers = {},
                               const std::string& method = "GET") {
    request_ = make_request(method, path);
    for (auto& [name, value] : headers) request_.headers.add(name, value);
    return run_handler(*handler_, request_);
  }

  std::string base_;
  std::string big_;
  std::unique_ptr<StaticHandler> handler_;
  http::Request request_;
};

TEST_F(StaticHandlerTest, ServesAFileWithTypeAndValidators) {
  const auto outcome = get("/style.css");
  EXPECT_EQ(outcome->response.status, 200);
  EXPECT_EQ(outcome->body(), "body{}");
  EXPECT_EQ(outcome->response.headers.get("Content-Type"), "text/css; charset=utf-8");
  EXPECT_TRUE(outcome->response.headers.get("ETag").has_value());
  EXPECT_TRUE(outcome->response.headers.get("Last-Modified").has_value());
  EXPECT_EQ(outcome->response.content_length(), 6u);
}

TEST_F(StaticHandlerTest, ServesTheIndexOfAFolderAndRedirectsToItsSlash) {
  EXPECT_EQ(get("/")->body(), "<h1>home</h1>");
  EXPECT_EQ(get("/docs/")->body(), "docs");
  const auto redirect = get("/docs");
  EXPECT_EQ(redirect->response.status, 301);
  EXPECT_EQ(redirect->response.headers.get("Location"), "/docs/");
  EXPECT_EQ(get("/empty/")->response.status, 403);  // no index, no listing
}

TEST_F(StaticHandlerTest, RedirectsToAFolderWithItsNamePercentEncodedAndTheQueryKept) {
  const std::string name = "a b%\r\n?#\"\xc3\xa9;=@:";  // any byte but '/' and NUL may name a folder
  fs::create_directories(base_ + "/site/" + name);
  request_ = make_request("GET", "/" + name);  // the decoded path
  request_.query = "x=%2F&y=a\"b";
  const auto redirect = run_handler(*handler_, request_);
  EXPECT_EQ(redirect->response.status, 301);
  EXPECT_EQ(redirect->response.headers.get("Location"), "/a%20b%25%0D%0A%3F%23%22%C3%A9;=@:/?x=%2F&y=a%22b");
}

TEST_F(StaticHandlerTest, AnswersFilesThatAreNotRegularWith404AtOnce) {
  // Opened for reading without O_NONBLOCK, a FIFO would wait for a writer forever.
  ASSERT_EQ(::mkfifo((base_ + "/site/fifo").c_str(), 0644), 0);
  EXPECT_EQ(get("/fifo")->response.status, 404);
  fs::create_directories(base_ + "/site/piped");
  ASSERT_EQ(::mkfifo((base_ + "/site/piped/index.html").c_str(), 0644), 0);
  EXPECT_EQ(get("/piped/")->response.status, 404);  // a folder's index too
  fs::create_directories(base_ + "/site/nested/index.html");
  EXPECT_EQ(get("/nested/")->response.status, 404);  // an index that is a folder
}

TEST_F(StaticHandlerTest, UsesTheWildcardParameterWhenTheRouteHasOne) {
  request_ = make_request("GET", "/assets/style.css");
  request_.params.emplace_back("*", "style.css");
  EXPECT_EQ(run_handler(*handler_, request_)->body(), "body{}");
}

TEST_F(StaticHandlerTest, AnswersMissingFilesWith404) { EXPECT_EQ(get("/nope.txt")->response.status, 404); }

TEST_F(StaticHandlerTest, NeverLeavesTheRoot) {
  EXPECT_EQ(get("/escape")->response.status, 403);  // a symlink pointing outside
  EXPECT_EQ(get("/alias.css")->body(), "body{}");    // one pointing inside is fine
  request_ = make_request("GET", "/x");
  request_.params.emplace_back("*", "../secret.txt");  // even if a route handed us ".."
  EXPECT_EQ(run_handler(*handler_, request_)->response.status, 403);
  request_.params.back().second = base_ + "/secret.txt";  // or an absolute path
  EXPECT_EQ(run_handler(*handler_, request_)->response.status, 403);
}

TEST_F(StaticHandlerTest, AnswersConditionalRequestsWith304) {
  const auto first = get("/style.css");
  const std::string etag(*first->response.headers.get("ETag"));
  const std::string modified(*first->response.headers.get("Last-Modified"));
  EXPECT_EQ(get("/style.css", {{"If-None-Match", etag}})->response.status, 304);
  EXPECT_EQ(get("/style.css", {{"If-None-Match", "\"other\", W/" + etag}})->response.status, 304);
  EXPECT_EQ(get("/style.css", {{"If-None-Match", "\"other\""}})->response.status, 200);
  EXPECT_EQ(get("/style.css", {{"If-Modified-Since", modified}})->response.status, 304);
  EXPECT_EQ(get("/style.css", {{"If-Modified-Since", http::format_http_date(0)}})->response.status, 200);
}

TEST_F(StaticHandlerTest, EvaluatesPreconditionsInTheRfc9110Order) {
  const auto first = get("/style.css");
  const std::string etag(*first->response.headers.get("ETag"));
  const std::string modified(*first->response.headers.get("Last-Modified"));
  const std::string past = http::format_http_date(0);
  const std::string future = http::format_http_date(std::time(nullptr) + 86400);
  // If-Match: strong comparison; "*" matches any current representation.
  EXPECT_EQ(get("/style.css", {{"If-Match", "\"other\""}})->response.status, 412);
  EXPECT_EQ(get("/style.css", {{"If-Match", "W/" + etag}})->response.status, 412);
  EXPECT_EQ(get("/style.css", {{"If-Match", "\"other\", " + etag}})->response.status, 200);
  EXPECT_EQ(get("/style.css", {{"If-Match", "*"}})->response.status, 200);
  // If-Unmodified-Since only without If-Match.
  EXPECT_EQ(get("/style.css", {{"If-Unmodified-Since", past}})->response.status, 412);
  EXPECT_EQ(get("/style.css", {{"If-Unmodified-Since", modified}})->response.status, 200);
  EXPECT_EQ(get("/style.css", {{"If-Match", etag}, {"If-Unmodified-Since", past}})->response.status, 200);
  EXPECT_EQ(get("/style.css", {{"If-Unmodified-Since", "not a date"}})->response.status, 200);
  // A failed If-Match wins over a matching If-None-Match.
  EXPECT_EQ(get("/style.css", {{"If-Match", "\"other\""}, {"If-None-Match", etag}})->response.status, 412);
  EXPECT_EQ(get("/style.css", {{"If-Match", etag}, {"If-None-Match", etag}})->response.status, 304);
  // If-Modified-Since: ignored with If-None-Match, in the future, or for HEAD/GET only.
  EXPECT_EQ(get("/style.css", {{"If-None-Match", "\"other\""}, {"If-Modified-Since", modified}})->response.status, 200);
  EXPECT_EQ(get("/style.css", {{"If-Modified-Since", future}})->response.status, 200);
  EXPECT_EQ(get("/style.css", {{"If-Modified-Since", modified}}, "HEAD")->response.status, 304);
  const auto failed = get("/style.css", {{"If-Match", "\"other\""}});
  EXPECT_EQ(failed->response.headers.get("ETag"), etag);
}

TEST_F(StaticHandlerTest, AcceptsTheObsoleteDateFormats) {
  const std::string modified(*get("/style.css")->response.headers.get("Last-Modified"));
  const auto when = http::parse_http_date(modified);
  ASSERT_TRUE(when.has_value());
  char rfc850[64];
  char asctime_form[64];
  std::tm parts{};
  gmtime_r(&*when, &parts);
  std::strftime(rfc850, sizeof rfc850, "%A, %d-%b-%y %H:%M:%S GMT", &parts);
  std::strftime(asctime_form, sizeof asctime_form, "%a %b %e %H:%M:%S %Y", &parts);
  EXPECT_EQ(http::parse_http_date(rfc850), when) << rfc850;
  EXPECT_EQ(http::parse_http_date(asctime_form), when) << asctime_form;
  EXPECT_EQ(get("/style.css", {{"If-Modified-Since", rfc850}})->response.status, 304);
  EXPECT_EQ(get("/style.css", {{"If-Modified-Since", asctime_form}})->response.status, 304);
}

TEST_F(StaticHandlerTest, HeadWithARangeAnswersAsGetWould) {
  const auto outcome = get("/style.css", {{"Range", "bytes=1-3"}}, "HEAD");
  EXPECT_EQ(outcome->response.status, 206);
  EXPECT_EQ(outcome->response.headers.get("Content-Range"), "bytes 1-3/6");
  EXPECT_EQ(outcome->response.content_length(), 3u);
  EXPECT_EQ(get("/style.css", {{"Range", "bytes=9-"}}, "HEAD")->response.status, 416);
}

TEST_F(StaticHandlerTest, IfRangeComparesStronglyAndByDate) {
  const auto first = get("/style.css");
  const std::string etag(*first->response.headers.get("ETag"));
  const std::string modified(*first->response.headers.get("Last-Modified"));
  EXPECT_EQ(get("/style.css", {{"Range", "bytes=1-3"}, {"If-Range", etag}})->response.status, 206);
  EXPECT_EQ(get("/style.css", {{"Range", "bytes=1-3"}, {"If-Range", "W/" + etag}})->response.status, 200);
  EXPECT_EQ(get("/style.css", {{"Range", "bytes=1-3"}, {"If-Range", modified}})->response.status, 206);
  EXPECT_EQ(get("/style.css", {{"Range", "bytes=1-3"}, {"If-Range", http::format_http_date(0)}})->response.status,
            200);
}

TEST_F(StaticHandlerTest, ServesASingleRangeWith206) {
  const auto outcome = get("/style.css", {{"Range", "bytes=1-3"}});
  EXPECT_EQ(outcome->response.status, 206);
  EXPECT_EQ(outcome->body(), "ody");
  EXPECT_EQ(outcome->response.headers.get("Content-Range"), "bytes 1-3/6");
  EXPECT_EQ(get("/style.css", {{"Range", "bytes=-2"}})->body(), "{}");
  EXPECT_EQ(get("/style.css", {{"Range", "bytes=4-"}})->body(), "{}");
}

TEST_F(StaticHandlerTest, AnswersAnUnsatisfiableRangeWith416) {
  const auto outcome = get("/style.css", {{"Range", "bytes=10-20"}});
  EXPECT_EQ(outcome->response.status, 416);
  EXPECT_EQ(outcome->response.headers.get("Content-Range"), "bytes */6");
}

TEST_F(StaticHandlerTest, IgnoresARangeWhenIfRangeDoesNotMatch) {
  const auto outcome = get("/style.css", {{"Range", "bytes=1-3"}, {"If-Range", "\"stale\""}});
  EXPECT_EQ(outcome->response.status, 200);
  EXPECT_EQ(outcome->body(), "body{}");
}

TEST_F(StaticHandlerTest, HeadGivesTheLengthWithoutReadingTheFile) {
  const auto outcome = get("/big.bin", {}, "HEAD");
  EXPECT_EQ(outcome->response.status, 200);
  EXPECT_EQ(outcome->response.content_length(), big_.size());
  EXPECT_TRUE(outcome->body().empty());
}

TEST_F(StaticHandlerTest, StreamsLargeFilesInPieces) {
  const auto outcome = get("/big.bin");
  EXPECT_GT(outcome->streamed.size(), 1u);  // not loaded whole
  EXPECT_TRUE(outcome->response.body.empty());
  EXPECT_EQ(outcome->body(), big_);
  EXPECT_EQ(outcome->response.content_length(), big_.size());
}

TEST_F(StaticHandlerTest, KeepsSmallFilesInMemoryForUpToASecond) {
  EXPECT_EQ(get("/style.css")->body(), "body{}");
  write("site/style.css", "changed");
  EXPECT_EQ(get("/style.css")->body(), "body{}");  // served from memory, no system call
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  const auto fresh = get("/style.css");
  EXPECT_EQ(fresh->body(), "changed");  // looked at again after a second
  EXPECT_EQ(fresh->response.content_length(), 7u);
}

TEST_F(StaticHandlerTest, ACachedFileIsReferencedNotCopiedWholeOrAsARange) {
  const auto whole = get("/style.css");
  EXPECT_TRUE(whole->response.has_body_reference());
  EXPECT_TRUE(whole->response.body.empty());
  EXPECT_EQ(whole->body(), "body{}");
  const auto range = get("/style.css", {{"Range", "bytes=1-3"}});
  EXPECT_TRUE(range->response.has_body_reference());
  EXPECT_EQ(range->body(), "ody");
  EXPECT_EQ(range->response.content_length(), 3u);
  // Both share the one cached copy.
  EXPECT_EQ(whole->response.body_owner(), range->response.body_owner());
  EXPECT_EQ(range->response.body_bytes().data(), whole->response.body_bytes().data() + 1);
}

TEST_F(StaticHandlerTest, AResponseKeepsItsBytesWhenTheCacheDropsTheEntry) {
  // Evicted by the cache's entry limit (4096): as many other files fill it.
  const auto held = get("/style.css");
  fs::create_directories(base_ + "/site/many");
  for (int i = 0; i < 4100; ++i) write("site/many/" + std::to_string(i), "x");
  for (int i = 0; i < 4100; ++i) ASSERT_EQ(get("/many/" + std::to_string(i))->body(), "x");
  write("site/style.css", "changed");
  EXPECT_EQ(get("/style.css")->body(), "changed");  // the entry was dropped: read again
  EXPECT_EQ(held->body(), "body{}");  // ASan: the bytes are the response's still
  EXPECT_EQ(held->response.body_owner().use_count(), 1);  // and only the response's
}

TEST_F(StaticHandlerTest, AResponseKeepsItsBytesAfterTheHandlerIsGone) {
  const auto held = get("/index.html");
  handler_.reset();  // a reload drops the handler, and its cache, while the response waits to be written
  EXPECT_EQ(held->body(), "<h1>home</h1>");
}

TEST_F(StaticHandlerTest, AResponseKeepsItsBytesWhenTheEntryGoesStale) {
  const auto held = get("/style.css");
  write("site/style.css", "changed");
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  EXPECT_EQ(get("/style.css")->body(), "changed");  // the stale entry was erased
  EXPECT_EQ(held->body(), "body{}");
}

TEST_F(StaticHandlerTest, RefusesOtherMethods) {
  const auto outcome = get("/style.css", {}, "POST");
  EXPECT_EQ(outcome->response.status, 405);
  EXPECT_EQ(outcome->response.headers.get("Allow"), "GET, HEAD");
}

TEST_F(StaticHandlerTest, RefusesARootThatIsNotAFolder) {
  const auto params = params_from(R"({"root": "secret.txt"})");
  EXPECT_THROW(StaticHandler(HandlerParams(params, base_)), ParamError);
}

TEST(ByteRange, ParsesTheSingleRangeForms) {
  ByteRange range{};
  EXPECT_EQ(parse_byte_range("bytes=0-0", 10, range), RangeOutcome::satisfiable);
  EXPECT_EQ(range.first, 0u);
  EXPECT_EQ(range.last, 0u);
  EXPECT_EQ(parse_byte_range("bytes=5-100", 10, range), RangeOutcome::satisfiable);
  EXPECT_EQ(range.last, 9u);  // clamped to the end
  EXPECT_EQ(parse_byte_range("bytes=-20", 10, range), RangeOutcome::satisfiable);
  EXPECT_EQ(range.first, 0u);
  EXPECT_EQ(parse_byte_range("bytes=10-", 10, range), RangeOutcome::unsatisfiable);
  EXPECT_EQ(parse_byte_range("bytes=-0", 10, range), RangeOutcome::unsatisfiable);
  EXPECT_EQ(parse_byte_range("bytes=0-1,3-4", 10, range), RangeOutcome::ignore);
  EXPECT_EQ(parse_byte_range("bytes=3-1", 10, range), RangeOutcome::ignore);
  EXPECT_EQ(parse_byte_range("items=0-1", 10, range), RangeOutcome::ignore);
  EXPECT_EQ(parse_byte_range("bytes=x-1", 10, range), RangeOutcome::ignore);
}

TEST(ByteRange, TakesTheUnitInAnyCaseBlanksAndNumbersOfAnySize) {
  ByteRange range{};
  EXPECT_EQ(parse_byte_range("Bytes=0-1", 10, range), RangeOutcome::satisfiable);
  EXPECT_EQ(parse_byte_range("BYTES=0-1", 10, range), RangeOutcome::satisfiable);
  EXPECT_EQ(parse_byte_range("bytes= 0-1", 10, range), RangeOutcome::satisfiable);
  EXPECT_EQ(range.last, 1u);
  EXPECT_EQ(parse_byte_range("bytes=0 - 1 ", 10, range), RangeOutcome::satisfiable);
  EXPECT_EQ(parse_byte_range("bytes =0-1", 10, range), RangeOutcome::ignore);
  // last-pos past any size: to the end; first-pos past it: unsatisfiable; a huge suffix: all of it.
  EXPECT_EQ(parse_byte_range("bytes=2-99999999999999999999999", 10, range), RangeOutcome::satisfiable);
  EXPECT_EQ(range.first, 2u);
  EXPECT_EQ(range.last, 9u);
  EXPECT_EQ(parse_byte_range("bytes=99999999999999999999999-", 10, range), RangeOutcome::unsatisfiable);
  EXPECT_EQ(parse_byte_range("bytes=18446744073709551615-", 10, range), RangeOutcome::unsatisfiable);
  EXPECT_EQ(parse_byte_range("bytes=-99999999999999999999999", 10, range), RangeOutcome::satisfiable);
  EXPECT_EQ(range.first, 0u);
  EXPECT_EQ(range.last, 9u);
  EXPECT_EQ(parse_byte_range("bytes=+1-2", 10, range), RangeOutcome::ignore);
  EXPECT_EQ(parse_byte_range("bytes=1-+2", 10, range), RangeOutcome::ignore);
  EXPECT_EQ(parse_byte_range("bytes=", 10, range), RangeOutcome::ignore);
}

}  // namespace
}  // namespace tiffany::testing
