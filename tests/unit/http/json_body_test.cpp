// JSON request and response helpers: precise 400s, 415, and writing.
#include <gtest/gtest.h>

#include <tiffany/http/json_body.hpp>
#include <tiffany/http/request.hpp>
#include <tiffany/http/response.hpp>

namespace tiffany::http {
namespace {

std::string error_of(std::string_view text) {
  std::string error;
  EXPECT_FALSE(parse_json(text, error)) << text;
  return error;
}

TEST(ParseJson, SaysWhereTheJsonBreaks) {
  EXPECT_EQ(error_of("{\"a\": 1,\n  \"b\": x}"), "bad JSON at line 2, column 8: unexpected \"x}\"");
  EXPECT_EQ(error_of("[1, 2"), "bad JSON at line 1, column 6: unexpected end");
  EXPECT_EQ(error_of("{} {}"), "bad JSON at line 1, column 4: more after the value");
  EXPECT_EQ(error_of("  \n "), "empty body, expected JSON");
  EXPECT_EQ(error_of("{\"n\": 1e999}"), "bad JSON at line 1, column 12: number out of range");  // not an exception
  std::string error;
  const auto value = parse_json(" {\"a\": [1, true, null]} \n", error);
  ASSERT_TRUE(value) << error;
  EXPECT_EQ(value->serialize(), R"({"a":[1,true,null]})");
}

TEST(ReadJson, AnswersBadJsonWith400AndAJsonReason) {
  Request request;
  request.headers.add("Content-Type", "application/json");
  request.body = "{\"a\": }";
  Response response;
  EXPECT_FALSE(read_json(request, response));
  EXPECT_EQ(response.status, 400);
  EXPECT_EQ(response.headers.get("Content-Type"), "application/json");
  EXPECT_EQ(response.body, R"({"error":"bad JSON at line 1, column 7: unexpected \"}\""})");
}

TEST(ReadJson, AnswersANonJsonContentTypeWith415AndAcceptsPlusJsonOrNone) {
  Request request;
  request.body = "[1]";
  request.headers.add("Content-Type", "text/plain");
  Response response;
  EXPECT_FALSE(read_json(request, response));
  EXPECT_EQ(response.status, 415);
  request.headers.set("Content-Type", "application/merge-patch+json; charset=utf-8");
  EXPECT_TRUE(read_json(request, response));
  request.headers.remove("Content-Type");
  EXPECT_TRUE(read_json(request, response));
}

TEST(WriteJson, SetsStatusTypeAndBody) {
  Response response;
  picojson::object object;
  object["ok"] = picojson::value(true);
  write_json(response, picojson::value(object), Status::created);
  EXPECT_EQ(response.status, 201);
  EXPECT_EQ(response.headers.get("Content-Type"), "application/json");
  EXPECT_EQ(response.body, R"({"ok":true})");
}

}  // namespace
}  // namespace tiffany::http
