// The head checks HTTP/1.1 and HTTP/2 share: request-target forms, the declared body, the expectation.
#include "http/engine/request_head_checks.hpp"

#include <gtest/gtest.h>

#include <string>

namespace tiffany::http {
namespace {

// "path ? query", or the refusal's status and reason.
std::string take(const std::string& method, const std::string& target, TargetForms forms) {
  Request request;
  request.method = method;
  request.target = target;
  const HeadRefusal refused = take_request_target(request, forms);
  if (refused) return std::to_string(refused.status) + " " + refused.reason;
  return request.path + " ? " + request.query;
}

constexpr TargetForms kHttp1 = TargetForms::with_absolute;
constexpr TargetForms kHttp2 = TargetForms::origin_and_asterisk;

TEST(RequestHeadChecks, OriginFormIsTakenAlikeByBothProtocols) {
  for (const TargetForms forms : {kHttp1, kHttp2}) {
    EXPECT_EQ(take("GET", "/a/./b/../c?x=1", forms), "/a/c ? x=1");
    EXPECT_EQ(take("GET", "/a?x=1#frag", forms), "/a ? x=1");  // the fragment is the client's, never the server's
    EXPECT_EQ(take("GET", "/", forms), "/ ? ");
    EXPECT_EQ(take("GET", "/%zz", forms), "400 malformed path");
    EXPECT_EQ(take("GET", "", forms), "400 malformed path");
  }
}

TEST(RequestHeadChecks, TheAsteriskFormIsOptionsAlone) {
  for (const TargetForms forms : {kHttp1, kHttp2}) {
    EXPECT_EQ(take("OPTIONS", "*", forms), "* ? ");
    EXPECT_EQ(take("GET", "*", forms), "400 asterisk-form is only for OPTIONS");
  }
}

TEST(RequestHeadChecks, TheAbsoluteFormIsHttp1Only) {
  EXPECT_EQ(take("GET", "http://example.com/a?x#f", kHttp1), "/a ? x");
  EXPECT_EQ(take("GET", "http://example.com?x", kHttp1), "/ ? x");
  EXPECT_EQ(take("GET", "http://user@example.com/", kHttp1), "400 malformed request-target");
  EXPECT_EQ(take("GET", "http://example.com/a", kHttp2), "400 malformed request-target");  // RFC 9113 §8.3.1
  EXPECT_EQ(take("CONNECT", "example.com:443", kHttp1), "501 CONNECT is not supported");
}

TEST(RequestHeadChecks, ADeclaredBodyOverTheLimitIs413) {
  EXPECT_FALSE(check_declared_body(std::nullopt, 10));
  EXPECT_FALSE(check_declared_body(10, 10));
  EXPECT_EQ(check_declared_body(11, 10).status, 413);
}

TEST(RequestHeadChecks, OnlyTheContinueExpectationIsMet) {
  EXPECT_FALSE(check_expectation(std::nullopt));
  EXPECT_FALSE(check_expectation("100-Continue"));
  EXPECT_EQ(check_expectation("200-ok").status, 417);
}

}  // namespace
}  // namespace tiffany::http
