// headers and cors middleware: what they add, remove and answer, and the settings they refuse.
#include <gtest/gtest.h>

#include <tiffany/handlers/testkit/plugin_harness.hpp>

#include "handlers/middleware/builtin/cors_middleware.hpp"
#include "handlers/middleware/builtin/headers_middleware.hpp"
#include "unit/handlers/middleware_test_support.hpp"

namespace tiffany::testkit {
namespace {

// The key of the ParamError a constructor throws for `settings`, or "(none)".
template <class M>
std::string refused_key(PluginHarness& harness, std::string_view settings) {
  try {
    M made(harness.params(settings));
  } catch (const ParamError& e) {
    return e.key();
  }
  return "(none)";
}

TEST(HeadersMiddleware, SetsFieldsReplacingTheHandlersAndRemovesOthers) {
  PluginHarness harness;
  HeadersMiddleware middleware(
      harness.params(R"({"set": {"X-Frame-Options": "DENY", "Content-Type": "text/html"}, "remove": ["X-Powered"]})"));
  class Noisy final : public Handler {
    Task<void> handle(http::Request&, http::Response& response) override {
      response.headers.add("Content-Type", "text/plain");
      response.headers.add("X-Powered", "secret");
      co_return;
    }
  } inner;
  const Outcome outcome = harness.run(middleware, inner, RequestBuilder("GET", "/"));
  EXPECT_EQ(outcome.header("X-Frame-Options"), "DENY");
  EXPECT_EQ(outcome.response.headers.get_all("Content-Type"), std::vector<std::string_view>{"text/html"});
  EXPECT_FALSE(outcome.header("X-Powered"));
}

TEST(HeadersMiddleware, AStreamedResponseCarriesTheSetFields) {
  PluginHarness harness;
  HeadersMiddleware middleware(harness.params(R"({"set": {"Cache-Control": "no-store"}})"));
  class Streamer final : public Handler {
    Task<void> handle(http::Request&, http::Response& response) override {
      EXPECT_EQ(response.headers.get("Cache-Control"), "no-store");  // in place before the head leaves
      co_await response.write("piece");
    }
  } inner;
  const Outcome outcome = harness.run(middleware, inner, RequestBuilder("GET", "/"));
  EXPECT_EQ(outcome.body(), "piece");
}

TEST(HeadersMiddleware, RefusesBadNamesValuesServerFieldsAndNothingToDo) {
  PluginHarness harness;
  EXPECT_EQ(refused_key<HeadersMiddleware>(harness, R"({"set": {"Bad Name": "x"}})"), "set.Bad Name");
  EXPECT_EQ(refused_key<HeadersMiddleware>(harness, R"({"set": {"X-A": "a\r\nb"}})"), "set.X-A");
  EXPECT_EQ(refused_key<HeadersMiddleware>(harness, R"({"set": {"Content-Length": "1"}})"), "set.Content-Length");
  EXPECT_EQ(refused_key<HeadersMiddleware>(harness, R"({"remove": ["Date"]})"), "remove[0]");
  EXPECT_EQ(refused_key<HeadersMiddleware>(harness, R"({"set": {"X-A": 1}})"), "set.X-A");
  EXPECT_EQ(refused_key<HeadersMiddleware>(harness, R"({})"), "");
}

TEST(CorsMiddleware, AnswersAPreflightItselfWith204) {
  PluginHarness harness;
  CorsMiddleware cors(harness.params(
      R"({"origins": ["https://app.test"], "methods": ["GET", "PUT"], "headers": ["Content-Type"], "credentials": true, "max_age": 60})"));
  InnerHandler inner;
  const Outcome outcome = harness.run(cors, inner,
                                      RequestBuilder("OPTIONS", "/api")
                                          .header("Origin", "https://app.test")
                                          .header("Access-Control-Request-Method", "PUT"));
  EXPECT_EQ(inner.runs, 0);
  EXPECT_EQ(outcome.status(), 204);
  EXPECT_EQ(outcome.header("Access-Control-Allow-Origin"), "https://app.test");
  EXPECT_EQ(outcome.header("Access-Control-Allow-Methods"), "GET, PUT");
  EXPECT_EQ(outcome.header("Access-Control-Allow-Headers"), "Content-Type");
  EXPECT_EQ(outcome.header("Access-Control-Allow-Credentials"), "true");
  EXPECT_EQ(outcome.header("Access-Control-Max-Age"), "60");
  EXPECT_EQ(outcome.header("Vary"), "Origin");
}

TEST(CorsMiddleware, RefusesAPreflightFromAnotherOrigin) {
  PluginHarness harness;
  CorsMiddleware cors(harness.params(R"({"origins": ["https://app.test"]})"));
  InnerHandler inner;
  const Outcome outcome = harness.run(cors, inner,
                                      RequestBuilder("OPTIONS", "/api")
                                          .header("Origin", "https://evil.test")
                                          .header("Access-Control-Request-Method", "GET"));
  EXPECT_EQ(outcome.status(), 403);
  EXPECT_FALSE(outcome.header("Access-Control-Allow-Origin"));
  EXPECT_EQ(inner.runs, 0);
}

TEST(CorsMiddleware, MarksAnAllowedOriginsResponseAndVariesOnOrigin) {
  PluginHarness harness;
  CorsMiddleware cors(harness.params(R"({"origins": ["https://a.test", "https://b.test"], "expose_headers": ["X-Id"]})"));
  InnerHandler inner;
  const Outcome allowed = harness.run(cors, inner, RequestBuilder("GET", "/").header("Origin", "https://b.test"));
  EXPECT_EQ(allowed.status(), 200);
  EXPECT_EQ(allowed.body(), "inner");
  EXPECT_EQ(allowed.header("Access-Control-Allow-Origin"), "https://b.test");
  EXPECT_EQ(allowed.header("Access-Control-Expose-Headers"), "X-Id");
  EXPECT_EQ(allowed.header("Vary"), "Origin");
  const Outcome other = harness.run(cors, inner, RequestBuilder("GET", "/").header("Origin", "https://c.test"));
  EXPECT_EQ(other.status(), 200);
  EXPECT_FALSE(other.header("Access-Control-Allow-Origin"));
  EXPECT_EQ(other.header("Vary"), "Origin");
  const Outcome same_site = harness.run(cors, inner, RequestBuilder("GET", "/"));
  EXPECT_FALSE(same_site.header("Access-Control-Allow-Origin"));
  EXPECT_FALSE(same_site.header("Vary"));
  EXPECT_EQ(inner.runs, 3);
}

TEST(CorsMiddleware, AnyOriginAnswersStarWithoutVary) {
  PluginHarness harness;
  CorsMiddleware cors(harness.params(R"({"origins": "*"})"));
  InnerHandler inner;
  const Outcome outcome = harness.run(cors, inner, RequestBuilder("GET", "/").header("Origin", "https://x.test"));
  EXPECT_EQ(outcome.header("Access-Control-Allow-Origin"), "*");
  EXPECT_FALSE(outcome.header("Vary"));
}

TEST(CorsMiddleware, RefusesBadSettings) {
  PluginHarness harness;
  EXPECT_EQ(refused_key<CorsMiddleware>(harness, R"({})"), "origins");
  EXPECT_EQ(refused_key<CorsMiddleware>(harness, R"({"origins": []})"), "origins");
  EXPECT_EQ(refused_key<CorsMiddleware>(harness, R"({"origins": ["app.test"]})"), "origins[0]");
  EXPECT_EQ(refused_key<CorsMiddleware>(harness, R"({"origins": ["https://a.test/path"]})"), "origins[0]");
  EXPECT_EQ(refused_key<CorsMiddleware>(harness, R"({"origins": "*", "credentials": true})"), "credentials");
  EXPECT_EQ(refused_key<CorsMiddleware>(harness, R"({"origins": "*", "methods": ["G ET"]})"), "methods[0]");
  EXPECT_EQ(refused_key<CorsMiddleware>(harness, R"({"origins": "*", "max_age": -1})"), "max_age");
}

}  // namespace
}  // namespace tiffany::testkit
