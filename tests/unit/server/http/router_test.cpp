// Router: parameters, wildcards, precedence, 404 and 405 with Allow.
#include "server/http/router.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>

#include <tiffany/handlers/handler.hpp>

namespace tiffany::http {
namespace {

// A handler that only has an identity; routing never calls it.
class Named final : public Handler {
 public:
  explicit Named(std::string label) : name(std::move(label)) {}
  Task<void> handle(Request&, Response&) override { co_return; }
  std::string name;
};

class RouterTest : public ::testing::Test {
 protected:
  void add(std::vector<std::string> methods, const std::string& pattern) {
    router_.add(std::move(methods), pattern, std::make_shared<Named>(pattern + " " + std::to_string(router_.size())));
  }
  // The name of the handler chosen for method+path, or "404"/"405 <Allow>".
  std::string route(const std::string& method, const std::string& path) {
    request_.method = method;
    request_.path = path;
    const Router::Result result = router_.route(request_);
    if (result.outcome == Router::Outcome::not_found) return "404";
    if (result.outcome == Router::Outcome::method_not_allowed) return "405 " + result.allow;
    return static_cast<Named*>(result.handler)->name;
  }
  Router router_;
  Request request_;
};

TEST_F(RouterTest, MatchesLiteralPathsExactly) {
  add({"GET"}, "/plaintext");
  add({"GET"}, "/");
  EXPECT_EQ(route("GET", "/plaintext"), "/plaintext 0");
  EXPECT_EQ(route("GET", "/"), "/ 1");
  EXPECT_EQ(route("GET", "/plaintext/"), "404");
  EXPECT_EQ(route("GET", "/plain"), "404");
}

// Each route's leading literal segments are matched as one prefix; the
// segment boundaries must hold all the same.
TEST_F(RouterTest, LeadingLiteralSegmentsMatchWholeSegmentsOnly) {
  add({"GET"}, "/api/v1/users/:id/posts");
  add({"GET"}, "/docs/");
  add({"GET"}, "/a/b");
  EXPECT_EQ(route("GET", "/api/v1/users/9/posts"), "/api/v1/users/:id/posts 0");
  EXPECT_EQ(request_.param("id"), "9");
  EXPECT_EQ(route("GET", "/api/v1/usersX/9/posts"), "404");
  EXPECT_EQ(route("GET", "/api/v1/users/9/postsX"), "404");
  EXPECT_EQ(route("GET", "/api/v1/users/"), "404");
  EXPECT_EQ(route("GET", "/docs/"), "/docs/ 1");
  EXPECT_EQ(route("GET", "/docs"), "404");
  EXPECT_EQ(route("GET", "/docs/x"), "404");
  EXPECT_EQ(route("GET", "/a/b"), "/a/b 2");
  EXPECT_EQ(route("GET", "/a/bc"), "404");
  EXPECT_EQ(route("GET", "/a/b/"), "404");
  EXPECT_EQ(route("GET", "/a/b/c"), "404");
  EXPECT_EQ(route("GET", "/a"), "404");
}

TEST_F(RouterTest, CapturesParameters) {
  add({"GET"}, "/users/:id/posts/:post");
  EXPECT_EQ(route("GET", "/users/42/posts/7"), "/users/:id/posts/:post 0");
  EXPECT_EQ(request_.param("id"), "42");
  EXPECT_EQ(request_.param("post"), "7");
  EXPECT_EQ(route("GET", "/users//posts/7"), "404");  // a parameter is never empty
  EXPECT_EQ(route("GET", "/users/42/posts"), "404");
}

TEST_F(RouterTest, WildcardTakesTheRestOfThePath) {
  add({"GET"}, "/static/*");
  EXPECT_EQ(route("GET", "/static/css/site.css"), "/static/* 0");
  EXPECT_EQ(request_.param("*"), "css/site.css");
  EXPECT_EQ(route("GET", "/static/"), "/static/* 0");
  EXPECT_EQ(request_.param("*"), "");
  EXPECT_EQ(route("GET", "/static"), "404");
  EXPECT_EQ(route("GET", "/staticfile"), "404");
}

TEST_F(RouterTest, MostSpecificRouteWinsWhateverTheOrder) {
  add({"GET"}, "/*");
  add({"GET"}, "/users/:id");
  add({"GET"}, "/users/me");
  add({"GET"}, "/users/*");
  EXPECT_EQ(route("GET", "/users/me"), "/users/me 2");
  EXPECT_EQ(route("GET", "/users/17"), "/users/:id 1");
  EXPECT_EQ(route("GET", "/users/17/friends"), "/users/* 3");
  EXPECT_EQ(route("GET", "/about"), "/* 0");
}

TEST_F(RouterTest, AMethodMismatchGives405WithAllow) {
  add({"GET"}, "/items/:id");
  add({"DELETE", "PUT"}, "/items/:id");
  EXPECT_EQ(route("POST", "/items/3"), "405 DELETE, GET, HEAD, PUT");
  EXPECT_EQ(route("PUT", "/items/3"), "/items/:id 1");
}

TEST_F(RouterTest, PrefersAMethodMatchOverAMoreSpecificPath) {
  add({"POST"}, "/users/me");
  add({"GET"}, "/users/:id");
  EXPECT_EQ(route("GET", "/users/me"), "/users/:id 1");
}

TEST_F(RouterTest, HeadUsesGetRoutesAndAnyMethodRoutesTakeAll) {
  add({"GET"}, "/page");
  add({}, "/anything");
  EXPECT_EQ(route("HEAD", "/page"), "/page 0");
  EXPECT_EQ(route("PATCH", "/anything"), "/anything 1");
}

TEST_F(RouterTest, TrailingSlashPatternsMatchOnlyTrailingSlashPaths) {
  add({"GET"}, "/docs/");
  EXPECT_EQ(route("GET", "/docs/"), "/docs/ 0");
  EXPECT_EQ(route("GET", "/docs"), "404");
}

TEST_F(RouterTest, RejectsMalformedPatterns) {
  const auto handler = std::make_shared<Named>("x");
  EXPECT_THROW(router_.add({}, "relative", handler), std::invalid_argument);
  EXPECT_THROW(router_.add({}, "/a/*/b", handler), std::invalid_argument);
  EXPECT_THROW(router_.add({}, "/a*", handler), std::invalid_argument);
  EXPECT_THROW(router_.add({}, "/:/x", handler), std::invalid_argument);
  EXPECT_THROW(router_.add({}, "/:id/:id", handler), std::invalid_argument);
  EXPECT_THROW(router_.add({}, "/a//b", handler), std::invalid_argument);
}

// The message of the std::invalid_argument add() throws, or "(added)".
std::string refusal(Router& router, std::vector<std::string> methods, const std::string& pattern) {
  try {
    router.add(std::move(methods), pattern, std::make_shared<Named>(pattern));
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(added)";
}

TEST_F(RouterTest, RefusesARouteAnEarlierOneWouldAlwaysWin) {
  add({"GET", "HEAD"}, "/users/:id");
  EXPECT_EQ(refusal(router_, {"POST", "GET"}, "/users/:name"),
            "an earlier route already answers GET /users/:id: this one could never be reached for it");
  add({}, "/files/*");
  EXPECT_EQ(refusal(router_, {"DELETE"}, "/files/*"),
            "an earlier route already answers DELETE /files/*: this one could never be reached for it");
  EXPECT_EQ(refusal(router_, {}, "/files/*"),
            "an earlier route already answers * /files/*: this one could never be reached for it");
}

TEST_F(RouterTest, AcceptsRoutesThatDifferInMethodShapeOrTrailingSlash) {
  add({"GET"}, "/users/:id");
  EXPECT_EQ(refusal(router_, {"POST"}, "/users/:id"), "(added)");
  EXPECT_EQ(refusal(router_, {"GET"}, "/users/me"), "(added)");     // more specific: wins for "me"
  EXPECT_EQ(refusal(router_, {"GET"}, "/users/:id/"), "(added)");   // trailing slash
  EXPECT_EQ(refusal(router_, {}, "/users/:id"), "(added)");         // any other method: a fallback
  EXPECT_EQ(route("PATCH", "/users/7"), "/users/:id");  // the fallback (named without an index)
  EXPECT_EQ(route("GET", "/users/7"), "/users/:id 0");
}

}  // namespace
}  // namespace tiffany::http
