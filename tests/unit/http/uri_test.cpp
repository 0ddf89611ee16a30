// URI helpers and query parameters.
#include <tiffany/http/uri.hpp>

#include <gtest/gtest.h>

#include <tiffany/http/request.hpp>

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

TEST(Uri, EncodesADecodedPathSoItIsSafeInAHeaderAndDecodesBack) {
  const std::string decoded = "/crlf\r\nX-Injected: yes/a b%?#\"<>\\^`{|}\x7f\xc3\xa9\t";
  std::string encoded;
  append_encoded_path(decoded, encoded);
  EXPECT_EQ(encoded, "/crlf%0D%0AX-Injected:%20yes/a%20b%25%3F%23%22%3C%3E%5C%5E%60%7B%7C%7D%7F%C3%A9%09");
  std::string back;
  ASSERT_TRUE(percent_decode(encoded, back));
  EXPECT_EQ(back, decoded);
  encoded.clear();
  append_encoded_path("/A-z_0.9~/!$&'()*+,;=:@", encoded);
  EXPECT_EQ(encoded, "/A-z_0.9~/!$&'()*+,;=:@");  // pchar and '/' stay as they are
}

TEST(Uri, KeepsAValidQueryAsReceivedAndEncodesOnlyBytesNoUriMayHold) {
  std::string out;
  append_encoded_query("a=%2F&b=c/d?e:f@g!$'()*+,;=", out);
  EXPECT_EQ(out, "a=%2F&b=c/d?e:f@g!$'()*+,;=");
  out.clear();
  append_encoded_query("a b\r\n\"\x01\xff", out);
  EXPECT_EQ(out, "a%20b%0D%0A%22%01%FF");
}

}  // namespace
}  // namespace tiffany::http
