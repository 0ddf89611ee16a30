// FormFields and the Request query/form/cookie conveniences.
#include <gtest/gtest.h>

#include <tiffany/http/form_fields.hpp>
#include <tiffany/http/request.hpp>

namespace tiffany::http {
namespace {

TEST(FormFields, KeepsEveryFieldInOrderDecodedWithPlusAsSpace) {
  const auto form = FormFields::parse("a=1&b=x+y%21&a=2&&flag");
  ASSERT_TRUE(form);
  ASSERT_EQ(form->size(), 4u);
  std::vector<std::pair<std::string, std::string>> seen(form->begin(), form->end());
  EXPECT_EQ(seen, (std::vector<std::pair<std::string, std::string>>{{"a", "1"}, {"b", "x y!"}, {"a", "2"}, {"flag", ""}}));
  EXPECT_EQ(form->get("a"), "1");
  EXPECT_EQ(form->get_all("a"), (std::vector<std::string_view>{"1", "2"}));
  EXPECT_FALSE(form->get("c"));
}

TEST(FormFields, RefusesAMalformedOrNulEscape) {
  EXPECT_FALSE(FormFields::parse("a=%zz"));
  EXPECT_FALSE(FormFields::parse("a=%0"));
  EXPECT_FALSE(FormFields::parse("a%00=1"));
  EXPECT_FALSE(FormFields::parse(std::string_view("a=1\0b", 5)));  // a raw NUL too
  EXPECT_TRUE(FormFields::parse("")->empty());
}

TEST(RequestQuery, GivesAllValuesOfAParameterNotOnlyTheFirst) {
  Request request;
  request.query = "tag=a&x=1&tag=b%20c&tag=%zz&tag";
  EXPECT_EQ(request.query_params("tag"), (std::vector<std::string>{"a", "b c", ""}));
  EXPECT_EQ(request.query_param("tag"), "a");  // the old API still answers
  EXPECT_FALSE(request.query_fields());         // one escape is malformed
  request.query = "tag=a&x=1";
  ASSERT_TRUE(request.query_fields());
  EXPECT_EQ(request.query_fields()->size(), 2u);
}

TEST(RequestForm, DecodesAnUrlencodedBodyOnlyWithItsContentType) {
  Request request;
  request.body = "name=Ada+Lovelace&lang=en";
  EXPECT_FALSE(request.form());
  request.headers.add("Content-Type", "Application/X-WWW-Form-Urlencoded; charset=utf-8");
  const auto form = request.form();
  ASSERT_TRUE(form);
  EXPECT_EQ(form->get("name"), "Ada Lovelace");
}

TEST(RequestCookie, FindsACookieInAnyCookieField) {
  Request request;
  request.headers.add("Cookie", "a=1; session=\"xyz\"");
  request.headers.add("Cookie", "b=2");
  EXPECT_EQ(request.cookie("session"), "xyz");
  EXPECT_EQ(request.cookie("b"), "2");
  EXPECT_FALSE(request.cookie("c"));
}

}  // namespace
}  // namespace tiffany::http
