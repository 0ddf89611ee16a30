// UTF-8 validation, replacement of invalid bytes, and JSON string escaping.
#include <tiffany/http/utf8.hpp>

#include <gtest/gtest.h>

#include <string>

namespace tiffany::http {
namespace {

std::string replaced(std::string_view text) {
  std::string out;
  append_utf8_replacing_invalid(text, out);
  return out;
}

std::string json(std::string_view text) {
  std::string out;
  append_json_string_content(text, out);
  return out;
}

TEST(Utf8, AcceptsValidTextOfEveryLength) {
  EXPECT_TRUE(is_valid_utf8(""));
  EXPECT_TRUE(is_valid_utf8("plain"));
  EXPECT_TRUE(is_valid_utf8("\xc3\xa9"));          // é
  EXPECT_TRUE(is_valid_utf8("\xe2\x82\xac"));      // €
  EXPECT_TRUE(is_valid_utf8("\xf0\x9f\x98\x80"));  // U+1F600
  EXPECT_TRUE(is_valid_utf8("\xf4\x8f\xbf\xbf"));  // U+10FFFF
}

TEST(Utf8, RefusesOverlongsSurrogatesAndTruncations) {
  for (const char* bad : {"\xff", "\x80", "\xc0\xaf", "\xc1\xbf", "\xe0\x80\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80",
                          "\xf5\x80\x80\x80", "\xc3", "\xe2\x82", "\xf0\x9f\x98", "a\xc3(b"}) {
    EXPECT_FALSE(is_valid_utf8(bad)) << bad;
  }
}

TEST(Utf8, ReplacesEachBadByteWithTheReplacementCharacter) {
  EXPECT_EQ(replaced("ok"), "ok");
  EXPECT_EQ(replaced("/users/\xff"), "/users/\xef\xbf\xbd");
  EXPECT_EQ(replaced("a\xc3\xa9\xc3"), "a\xc3\xa9\xef\xbf\xbd");
  EXPECT_EQ(replaced("\xed\xa0\x80"), "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
  EXPECT_TRUE(is_valid_utf8(replaced("\xc0\xaf\xe0\x80\xf8\xff\xfe")));
}

TEST(Utf8, EscapesJsonStringContent) {
  EXPECT_EQ(json("a\"b\\c"), "a\\\"b\\\\c");
  EXPECT_EQ(json("\n\x01\x7f"), "\\u000a\\u0001\\u007f");
  EXPECT_EQ(json("\xc3\xa9\xff"), "\xc3\xa9\\ufffd");
}

}  // namespace
}  // namespace tiffany::http
