// Cookie parsing and the Set-Cookie builder.
#include <gtest/gtest.h>

#include <tiffany/http/cookies.hpp>
#include <tiffany/http/response.hpp>

namespace tiffany::http {
namespace {

using Cookies = std::vector<std::pair<std::string_view, std::string_view>>;

TEST(ParseCookies, SplitsOnSemicolonsTrimsAndUnquotes) {
  EXPECT_EQ(parse_cookies(" a=1;b=\"two\" ;  c= ; noequals; =x"), (Cookies{{"a", "1"}, {"b", "two"}, {"c", ""}}));
  EXPECT_TRUE(parse_cookies("").empty());
}

TEST(SetCookieBuilder, WritesEveryAttribute) {
  SetCookie cookie("session", "abc123");
  cookie.path = "/";
  cookie.domain = "example.com";
  cookie.max_age = 3600;
  cookie.expires = "Thu, 26 Nov 2026 10:00:00 GMT";
  cookie.secure = true;
  cookie.http_only = true;
  cookie.same_site = SetCookie::SameSite::lax;
  EXPECT_EQ(cookie.serialize(),
            "session=abc123; Path=/; Domain=example.com; Max-Age=3600; Expires=Thu, 26 Nov 2026 10:00:00 GMT; Secure; "
            "HttpOnly; SameSite=Lax");
}

TEST(SetCookieBuilder, RefusesWhatWouldBreakTheField) {
  EXPECT_THROW(SetCookie("bad name", "v").serialize(), std::invalid_argument);
  EXPECT_THROW(SetCookie("n", "a;b").serialize(), std::invalid_argument);
  EXPECT_THROW(SetCookie("n", "a b").serialize(), std::invalid_argument);
  EXPECT_THROW(SetCookie("n", "line\r\nX-Evil: 1").serialize(), std::invalid_argument);
  SetCookie cookie("n", "v");
  cookie.path = "/a;Secure";
  EXPECT_THROW(cookie.serialize(), std::invalid_argument);
}

TEST(SetCookieBuilder, AddsOneFieldPerCookieAndANegativeMaxAgeDeletes) {
  Response response;
  set_cookie(response, SetCookie("a", "1"));
  SetCookie gone("b", "");
  gone.max_age = -5;
  set_cookie(response, gone);
  EXPECT_EQ(response.headers.get_all("Set-Cookie"), (std::vector<std::string_view>{"a=1", "b=; Max-Age=0"}));
}

}  // namespace
}  // namespace tiffany::http
