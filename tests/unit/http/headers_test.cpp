// Header field checks: which names and values may be written.
#include <tiffany/http/headers.hpp>

#include <gtest/gtest.h>

#include <string>

namespace tiffany::http {
namespace {

TEST(Headers, AFieldNameMustBeAToken) {
  EXPECT_TRUE(is_valid_field_name("Content-Type"));
  EXPECT_TRUE(is_valid_field_name("x!#$%&'*+-.^_`|~09"));
  EXPECT_FALSE(is_valid_field_name(""));
  EXPECT_FALSE(is_valid_field_name("X Bad"));
  EXPECT_FALSE(is_valid_field_name("X-Bad:"));
  EXPECT_FALSE(is_valid_field_name("X\r\nInjected"));
  EXPECT_FALSE(is_valid_field_name(std::string("X\0", 2)));
  EXPECT_FALSE(is_valid_field_name("X-\xc3\xa9"));
  EXPECT_FALSE(is_valid_field_name("(comment)"));
}

TEST(Headers, AFieldValueMayHoldNoControlByteButTab) {
  EXPECT_EQ(find_invalid_field_value_byte(""), std::string_view::npos);
  EXPECT_EQ(find_invalid_field_value_byte("text/html; q=\"a\tb\" \x80\xff"), std::string_view::npos);
  EXPECT_EQ(find_invalid_field_value_byte("a\rb"), 1u);
  EXPECT_EQ(find_invalid_field_value_byte("ab\n"), 2u);
  EXPECT_EQ(find_invalid_field_value_byte(std::string("a\0b", 3)), 1u);
  EXPECT_EQ(find_invalid_field_value_byte("\x01"), 0u);
  EXPECT_EQ(find_invalid_field_value_byte("a\x1f"), 1u);
  EXPECT_EQ(find_invalid_field_value_byte("del\x7f"), 3u);
}

}  // namespace
}  // namespace tiffany::http
