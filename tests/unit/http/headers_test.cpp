// Header fields: which names and values may be written, and removal that keeps the order.
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

std::string all(const Headers& headers) {
  std::string out;
  for (const Headers::Field& field : headers) out += field.name + "=" + field.value + " ";
  return out;
}

TEST(Headers, RemoveDropsEveryFieldOfANameAnyCaseAndKeepsTheOrder) {
  Headers headers;
  headers.add("A", "1");
  headers.add("x-drop", "2");
  headers.add("B", "3");
  headers.add("X-Drop", "4");
  headers.add("C", "5");
  headers.remove("X-DROP");
  EXPECT_EQ(all(headers), "A=1 B=3 C=5 ");
  headers.remove("absent");
  EXPECT_EQ(all(headers), "A=1 B=3 C=5 ");
}

TEST(Headers, RemoveIfDropsWhatThePredicateSaysAndFieldsAddedAfterAreWhole) {
  Headers headers;
  for (const char* name : {"keep-1", "drop-1", "drop-2", "keep-2", "drop-3", "keep-3"}) headers.add(name, name);
  headers.remove_if([](const Headers::Field& field) { return field.name.rfind("drop", 0) == 0; });
  EXPECT_EQ(all(headers), "keep-1=keep-1 keep-2=keep-2 keep-3=keep-3 ");
  EXPECT_EQ(headers.size(), 3u);
  // Why: the dropped fields sit behind the live ones for reuse; a new one must start empty.
  headers.add("new", "value");
  EXPECT_EQ(all(headers), "keep-1=keep-1 keep-2=keep-2 keep-3=keep-3 new=value ");
  headers.remove_if([](const Headers::Field&) { return true; });
  EXPECT_TRUE(headers.empty());
}

}  // namespace
}  // namespace tiffany::http
