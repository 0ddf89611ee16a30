// RespReader (pub/sub's Redis replies, RESP2): each reply type, replies split anywhere, and what it refuses.
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "client/engine/redis/resp_command.hpp"
#include "client/engine/redis/resp_reader.hpp"

namespace tiffany::redis {
namespace {

using Type = RespValue::Type;

// Every reply in `bytes`, fed `piece` bytes at a time; `error` says whether the stream broke.
std::vector<RespValue> read_all(std::string_view bytes, std::size_t piece, bool* error = nullptr,
                                RespLimits limits = {}) {
  RespReader reader(limits);
  std::vector<RespValue> values;
  bool broke = false;
  for (std::size_t at = 0; at < bytes.size() && !broke; at += piece) {
    reader.feed(bytes.substr(at, piece));
    RespValue value;
    for (;;) {
      const RespReader::Status status = reader.next(value);
      if (status != RespReader::Status::value) {
        broke = status == RespReader::Status::error;
        break;
      }
      values.push_back(value);
    }
  }
  if (error != nullptr) *error = broke;
  return values;
}

TEST(RespReader, ReadsEveryTypeWholeOrByteByByte) {
  const std::string stream =
      "+OK\r\n-ERR unknown\r\n:-42\r\n$5\r\nhe\r\no\r\n$-1\r\n$0\r\n\r\n"
      "*3\r\n$7\r\nmessage\r\n$4\r\nchat\r\n$2\r\nhi\r\n*-1\r\n*2\r\n*1\r\n:1\r\n*0\r\n";
  for (const std::size_t piece : {stream.size(), std::size_t{1}, std::size_t{3}}) {
    bool error = true;
    const std::vector<RespValue> values = read_all(stream, piece, &error);
    EXPECT_FALSE(error);
    ASSERT_EQ(values.size(), 9u) << piece;
    EXPECT_TRUE(values[0].type == Type::simple_string && values[0].text == "OK");
    EXPECT_TRUE(values[1].type == Type::error && values[1].text == "ERR unknown");
    EXPECT_TRUE(values[2].type == Type::integer && values[2].integer == -42);
    EXPECT_TRUE(values[3].type == Type::bulk_string && values[3].text == "he\r\no") << "a bulk string holds any bytes";
    EXPECT_EQ(values[4].type, Type::null);
    EXPECT_TRUE(values[5].type == Type::bulk_string && values[5].text.empty());
    ASSERT_TRUE(values[6].is_array_of(3));
    EXPECT_TRUE(values[6].elements[0].is_string("message"));
    EXPECT_EQ(values[6].elements[2].text, "hi");
    EXPECT_EQ(values[7].type, Type::null);
    ASSERT_TRUE(values[8].is_array_of(2));
    EXPECT_TRUE(values[8].elements[0].is_array_of(1));
    EXPECT_TRUE(values[8].elements[1].is_array_of(0));
  }
}

TEST(RespReader, BrokenRepliesEndTheStreamWithAReason) {
  for (const char* bad : {"?what\r\n", ":12a\r\n", ":\r\n", ":+5\r\n", "$-2\r\n", "$3\r\nabcd\r\n", "*-5\r\n",
                          "+a\rb\r\n", ":99999999999999999999\r\n"}) {
    bool error = false;
    read_all(bad, 1, &error);
    EXPECT_TRUE(error) << bad;
  }
}

TEST(RespReader, LimitsHoldAndALineOfTheLongestLengthMayArriveSplit) {
  RespLimits limits;
  limits.max_line_bytes = 8;
  limits.max_bulk_bytes = 16;
  limits.max_elements = 2;
  limits.max_depth = 2;
  bool error = true;
  // Found by resp_reader_fuzzer: the longest line, its LF in the next read, was refused.
  EXPECT_EQ(read_all("+12345678\r\n", 1, &error, limits).size(), 1u);
  EXPECT_FALSE(error);
  read_all("+123456789\r\n", 1, &error, limits);
  EXPECT_TRUE(error) << "a line one byte too long";
  read_all("+1234567890", 100, &error, limits);
  EXPECT_TRUE(error) << "too long before its end arrives";
  read_all("$17\r\n", 100, &error, limits);
  EXPECT_TRUE(error) << "a bulk string declared over the limit is refused before its bytes arrive";
  read_all("*3\r\n", 100, &error, limits);
  EXPECT_TRUE(error) << "too many elements";
  read_all("*1\r\n*1\r\n*1\r\n:1\r\n", 100, &error, limits);
  EXPECT_TRUE(error) << "nested too deep";
}

TEST(RespCommand, WordsAreBulkStringsOfAnyBytes) {
  std::string out;
  append_command(out, {"PUBLISH", "tiffany.pubsub.room", std::string_view("a\r\nb", 4)});
  EXPECT_EQ(out, "*3\r\n$7\r\nPUBLISH\r\n$19\r\ntiffany.pubsub.room\r\n$4\r\na\r\nb\r\n");
  const std::vector<RespValue> back = read_all(out, 2);
  ASSERT_EQ(back.size(), 1u);
  ASSERT_TRUE(back[0].is_array_of(3));
  EXPECT_EQ(back[0].elements[2].text, std::string_view("a\r\nb", 4));
}

}  // namespace
}  // namespace tiffany::redis
