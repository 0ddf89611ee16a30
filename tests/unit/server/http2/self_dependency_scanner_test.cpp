// SelfDependencyScanner: self-dependent PRIORITY frames found wherever the input is cut.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "server/http2/connection_preface.hpp"
#include "server/http2/self_dependency_scanner.hpp"

namespace tiffany::http2 {
namespace {

std::string frame(std::uint8_t type, std::uint32_t stream, std::string_view payload) {
  std::string bytes;
  const auto length = static_cast<std::uint32_t>(payload.size());
  for (int shift : {16, 8, 0}) bytes.push_back(static_cast<char>((length >> shift) & 0xff));
  bytes.push_back(static_cast<char>(type));
  bytes.push_back('\0');
  for (int shift : {24, 16, 8, 0}) bytes.push_back(static_cast<char>((stream >> shift) & 0xff));
  bytes.append(payload);
  return bytes;
}

std::string priority(std::uint32_t stream, std::uint32_t depends_on, bool exclusive = false) {
  std::string payload;
  const std::uint32_t field = depends_on | (exclusive ? 0x80000000U : 0);
  for (int shift : {24, 16, 8, 0}) payload.push_back(static_cast<char>((field >> shift) & 0xff));
  payload.push_back('\x10');
  return frame(0x2, stream, payload);
}

// Feeds `input` in pieces of `piece` bytes; returns each (end offset in the whole input, stream) found.
std::vector<std::pair<std::size_t, std::int32_t>> found_in(std::string_view input, std::size_t piece) {
  SelfDependencyScanner scanner;
  std::vector<std::pair<std::size_t, std::int32_t>> found;
  std::size_t offset = 0;
  while (offset < input.size()) {
    std::string_view bytes = input.substr(offset, piece);
    while (!bytes.empty()) {
      std::int32_t stream = 0;
      const std::size_t used = scanner.scan(bytes, stream);
      offset += used;
      if (stream != 0) found.emplace_back(offset, stream);
      bytes.remove_prefix(used);
    }
  }
  return found;
}

TEST(SelfDependencyScanner, FindsEachSelfDependentPriorityFrameWhereverTheInputIsCut) {
  const std::string before = std::string(kClientPreface) + frame(0x4, 0, "") + frame(0x0, 1, std::string(300, '\x02'));
  const std::string first = priority(3, 3);
  const std::string between = priority(5, 3) + frame(0x6, 0, std::string(8, '\0')) + priority(7, 5, true);
  const std::string second = priority(9, 9, true);  // the exclusive bit is not part of the id
  const std::string input = before + first + between + second + frame(0x8, 0, "\0\0\0\x01");
  const std::vector<std::pair<std::size_t, std::int32_t>> expected{
      {before.size() + first.size(), 3}, {before.size() + first.size() + between.size() + second.size(), 9}};
  for (const std::size_t piece : {std::size_t{1}, std::size_t{2}, std::size_t{5}, std::size_t{9}, std::size_t{13},
                                  input.size()}) {
    SCOPED_TRACE(piece);
    EXPECT_EQ(found_in(input, piece), expected);
  }
}

TEST(SelfDependencyScanner, APayloadThatOnlyLooksLikeAPriorityFrameIsSkipped) {
  // A DATA payload holding a whole self-dependent PRIORITY frame, and a PRIORITY frame of the wrong length.
  const std::string input = std::string(kClientPreface) + frame(0x0, 1, priority(3, 3)) +
                            frame(0x2, 5, priority(5, 5).substr(9) + "x");
  EXPECT_TRUE(found_in(input, input.size()).empty());
}

}  // namespace
}  // namespace tiffany::http2
