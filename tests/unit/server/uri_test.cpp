// URI helpers and query parameters.
#include "server/http/uri.hpp"

#include <gtest/gtest.h>

#include "server/http/request.hpp"

namespace tiffany::http {
namespace {

std::string normalized(std::string_view raw) {
  std::string out;
  return normalize_path(raw, out) ? out : "invalid";
}

TEST(Uri, NormalisesDotSegmentsAndSlashes) {
  EXPECT_EQ(normalized("/"), "/");
  EXPECT_EQ(normalized("/a/b/c"), "/a/b/c");
  EXPECT_EQ(normalized("/a/./b/../c"), "/a/c");
  EXPECT_EQ(normalized("/a/b/."), "/a/b/");
  EXPECT_EQ(normalized("/.."), "/");
  EXPECT_EQ(normalized("//a///b//"), "/a/b/");
  EXPECT_EQ(normalized("/.hidden/..dots/x..y"), "/.hidden/..dots/x..y");
  EXPECT_EQ(normalized("/a%2Fb"), "/a/b");
  EXPECT_EQ(normalized("/%2e%2e/%2e/x"), "/x");
  EXPECT_EQ(normalized("relative"), "invalid");
  EXPECT_EQ(normalized("/%"), "invalid");
  EXPECT_EQ(normalized("/%4"), "invalid");
  EXPECT_EQ(normalized("/%00"), "invalid");
}

TEST(Uri, PercentDecodesAndOptionallyTurnsPlusIntoSpace) {
  std::string out;
  EXPECT_TRUE(percent_decode("a%20b+c", out));
  EXPECT_EQ(out, "a b+c");
  out.clear();
  EXPECT_TRUE(percent_decode("a%20b+c", out, true));
  EXPECT_EQ(out, "a b c");
}

TEST(Uri, QueryParametersAreDecoded) {
  Request request;
  request.query = "name=J%C3%BCrgen+M&flag&empty=&name=second";
  EXPECT_EQ(request.query_param("name"), "J\xC3\xBCrgen M");
  EXPECT_EQ(request.query_param("flag"), "");
  EXPECT_EQ(request.query_param("empty"), "");
  EXPECT_EQ(request.query_param("missing"), std::nullopt);
}

}  // namespace
}  // namespace tiffany::http
