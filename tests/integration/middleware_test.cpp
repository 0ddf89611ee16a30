// Middleware end to end: listener and route chains, the four built-ins, "with" and custom 404/405, through the real binary.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "server_process.hpp"

namespace tiffany::testing {
namespace {

using namespace std::chrono_literals;

// `crypt("open sesame", "$5$saltsalt1234")` (openssl passwd -5).
constexpr const char* kAliceHash = "$5$saltsalt1234$nv9QVU9bEILmqYkzDNNrFM656NWiENOxJy5AOOga6n/";

RunResult curl(const std::string& url, const std::vector<std::string>& extra = {}) {
  std::vector<std::string> args = {"-sS", "-i", "--max-time", "20"};
  args.insert(args.end(), extra.begin(), extra.end());
  args.push_back(url);
  return run_program("curl", args);
}

bool has(const RunResult& run, const std::string& text) { return run.out.find(text) != std::string::npos; }

class MiddlewareServer : public ::testing::Test {
 protected:
  void SetUp() override {
    // One worker: the rate limit's buckets are per worker.
    const std::string config = R"({"workers": 1, "listeners": [{"name": "web", "address": "127.0.0.1:0", "protocol": "http",
      "middleware": [
        {"use": "headers", "set": {"X-Frame-Options": "DENY"}},
        {"use": "cors", "origins": ["https://app.test"], "methods": ["GET", "PUT"], "headers": ["Content-Type"]}],
      "not_found": {"handler": "text", "with": {"body": "no such page\n"}},
      "method_not_allowed": {"handler": "json", "with": {"document": {"error": "method"}}},
      "routes": [
        {"method": "GET", "path": "/open", "handler": "text", "with": {"body": "open\n"}},
        {"method": "GET", "path": "/private", "handler": "json",
         "middleware": [{"use": "basic_auth", "realm": "Private", "users": {"alice": ")" +
                               std::string(kAliceHash) + R"("}}]},
        {"method": "GET", "path": "/limited", "handler": "text", "with": {"body": "ok\n"},
         "middleware": [{"use": "rate_limit", "rate": 0.01, "burst": 2}]},
        {"method": "GET", "path": "/old", "handler": "text", "body": "flat\n"}]}]})";
    server_ = std::make_unique<ServerProcess>(config);
    base_ = "http://127.0.0.1:" + std::to_string(server_->port_of("web"));
  }
  std::unique_ptr<ServerProcess> server_;
  std::string base_;
};

TEST_F(MiddlewareServer, TheListenersChainWrapsEveryRoute) {
  const RunResult open = curl(base_ + "/open", {"-H", "Origin: https://app.test"});
  EXPECT_TRUE(has(open, "HTTP/1.1 200 OK")) << open.out << server_->err();
  EXPECT_TRUE(has(open, "\r\nX-Frame-Options: DENY\r\n")) << open.out;
  EXPECT_TRUE(has(open, "\r\nAccess-Control-Allow-Origin: https://app.test\r\n")) << open.out;
  EXPECT_TRUE(has(open, "\r\nVary: Origin\r\n")) << open.out;
  EXPECT_TRUE(has(open, "\r\n\r\nopen\n")) << open.out;
}

TEST_F(MiddlewareServer, CorsAnswersAPreflightForAPathWithNoOptionsRoute) {
  const RunResult preflight = curl(base_ + "/open", {"-X", "OPTIONS", "-H", "Origin: https://app.test", "-H",
                                                     "Access-Control-Request-Method: PUT"});
  EXPECT_TRUE(has(preflight, "HTTP/1.1 204 No Content")) << preflight.out;
  EXPECT_TRUE(has(preflight, "\r\nAccess-Control-Allow-Methods: GET, PUT\r\n")) << preflight.out;
  EXPECT_TRUE(has(preflight, "\r\nAccess-Control-Allow-Headers: Content-Type\r\n")) << preflight.out;
  const RunResult stranger = curl(base_ + "/open", {"-X", "OPTIONS", "-H", "Origin: https://evil.test", "-H",
                                                    "Access-Control-Request-Method: PUT"});
  EXPECT_TRUE(has(stranger, "HTTP/1.1 403 Forbidden")) << stranger.out;
}

TEST_F(MiddlewareServer, BasicAuthGuardsItsRouteAndTellsTheHandlerWho) {
  const RunResult refused = curl(base_ + "/private");
  EXPECT_TRUE(has(refused, "HTTP/1.1 401 Unauthorized")) << refused.out;
  EXPECT_TRUE(has(refused, "\r\nWWW-Authenticate: Basic realm=\"Private\", charset=\"UTF-8\"\r\n")) << refused.out;
  EXPECT_TRUE(has(refused, "\r\nX-Frame-Options: DENY\r\n")) << "the listener's chain runs outside: " << refused.out;
  EXPECT_TRUE(has(curl(base_ + "/private", {"-u", "alice:wrong"}), "HTTP/1.1 401 Unauthorized"));
  const RunResult let_in = curl(base_ + "/private", {"-u", "alice:open sesame"});
  EXPECT_TRUE(has(let_in, "HTTP/1.1 200 OK")) << let_in.out << server_->err();
}

TEST_F(MiddlewareServer, RateLimitAnswers429WithRetryAfterPastTheBurst) {
  EXPECT_TRUE(has(curl(base_ + "/limited"), "HTTP/1.1 200 OK"));
  EXPECT_TRUE(has(curl(base_ + "/limited"), "HTTP/1.1 200 OK"));
  const RunResult limited = curl(base_ + "/limited");
  EXPECT_TRUE(has(limited, "HTTP/1.1 429 Too Many Requests")) << limited.out;
  EXPECT_TRUE(has(limited, "\r\nRetry-After: 100\r\n")) << limited.out;
  EXPECT_TRUE(has(curl(base_ + "/open"), "HTTP/1.1 200 OK")) << "another route has no limit";
}

TEST_F(MiddlewareServer, CustomNotFoundAndMethodNotAllowedKeepTheirStatusAndAllow) {
  const RunResult missing = curl(base_ + "/nowhere");
  EXPECT_TRUE(has(missing, "HTTP/1.1 404 Not Found")) << missing.out;
  EXPECT_TRUE(has(missing, "\r\n\r\nno such page\n")) << missing.out;
  EXPECT_TRUE(has(missing, "\r\nX-Frame-Options: DENY\r\n")) << missing.out;
  const RunResult wrong_method = curl(base_ + "/open", {"-X", "DELETE"});
  EXPECT_TRUE(has(wrong_method, "HTTP/1.1 405 Method Not Allowed")) << wrong_method.out;
  EXPECT_TRUE(has(wrong_method, "\r\nAllow: GET, HEAD\r\n")) << wrong_method.out;
  EXPECT_TRUE(has(wrong_method, R"({"error":"method"})")) << wrong_method.out;
}

TEST_F(MiddlewareServer, TheDeprecatedFlatFormWorksWithOneWarningNamingThePath) {
  EXPECT_TRUE(has(curl(base_ + "/old"), "\r\n\r\nflat\n"));
  const std::string err = server_->err();
  const std::string warning = "route \"/old\" puts handler settings (\"body\") beside the route keys";
  ASSERT_NE(err.find(warning), std::string::npos) << err;
  EXPECT_EQ(err.find(warning), err.rfind(warning)) << "logged once: " << err;
}

// A refused config names the file, the JSON path and what was expected.
std::string refusal(const std::string& config) {
  TempDir dir;
  const std::string path = dir.write("t.json", config);
  const RunResult run = run_tiffany({"--check-config", "--config", path});
  EXPECT_NE(run.exit_code, 0);
  const std::string prefix = path + ": ";
  const std::size_t at = run.err.find(prefix);
  return at == std::string::npos ? run.err : run.err.substr(at + prefix.size());
}

std::string listener_with(const std::string& extra) {
  return R"({"listeners": [{"name": "w", "address": "127.0.0.1:0", "protocol": "http", )" + extra + "}]}";
}

// The first `expected.size()` characters of `actual` (so a test need not repeat a long list).
std::string head(const std::string& actual, const std::string& expected) { return actual.substr(0, expected.size()); }

TEST(MiddlewareConfigErrors, NameTheFileJsonPathAndExpectation) {
  std::string expected =
      "$.listeners[0].middleware[0].use: unknown middleware \"corz\"; expected one of \"basic_auth\", \"cors\", "
      "\"headers\", \"rate_limit\"\n";
  EXPECT_EQ(refusal(listener_with(R"("routes": [], "middleware": [{"use": "corz"}])")), expected);
  expected = "$.listeners[0].middleware[0].origin: unknown key for middleware \"cors\"; expected one of \"use\", ";
  EXPECT_EQ(head(refusal(listener_with(R"("routes": [], "middleware": [{"use": "cors", "origins": "*", "origin": "*"}])")),
                 expected),
            expected);
  expected = "$.listeners[0].routes[0].middleware[0].users.bob: expected a SHA-crypt";
  EXPECT_EQ(head(refusal(listener_with(R"("routes": [{"path": "/", "handler": "text", "with": {"body": "x"},
                               "middleware": [{"use": "basic_auth", "users": {"bob": "$1$x$y"}}]}])")),
                 expected),
            expected);
  expected = "$.listeners[0].routes[0].with.bdy: unknown key for handler \"text\"; expected one of \"body\", ";
  EXPECT_EQ(head(refusal(listener_with(R"("routes": [{"path": "/", "handler": "text", "with": {"body": "x", "bdy": "x"}}])")),
                 expected),
            expected);
  expected = "$.listeners[0].not_found.handler: unknown handler \"txt\"";
  EXPECT_EQ(head(refusal(listener_with(R"("routes": [], "not_found": {"handler": "txt"})")), expected), expected);
}

}  // namespace
}  // namespace tiffany::testing
