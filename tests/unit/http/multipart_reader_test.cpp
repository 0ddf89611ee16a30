// MultipartReader: the same parts as a whole-body parse however the body is cut, in bounded memory.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include <tiffany/http/multipart.hpp>
#include <tiffany/http/multipart_reader.hpp>

namespace tiffany::http {
namespace {

// What a streaming consumer saw: each part's name, filename, type and
// bytes, or the error; and the most bytes the reader held between pieces.
struct Streamed {
  std::vector<std::string> parts;  // "name|filename|type|body"
  std::string error;
  std::size_t most_held = 0;
};

// Feeds `body` in pieces of `size` bytes from one buffer that is overwritten
// for every piece, as a socket's receive buffer would be.
Streamed stream(const std::string& body, std::string_view boundary, std::size_t size, MultipartLimits limits = {}) {
  Streamed out;
  MultipartReader reader(boundary, limits);
  std::string buffer;
  std::size_t offset = 0;
  std::string current;
  for (;;) {
    switch (reader.next()) {
      case MultipartReader::Event::part: {
        const MultipartPart& part = reader.part();
        current = part.name + "|" + part.filename.value_or("-") + "|" + part.content_type + "|";
        break;
      }
      case MultipartReader::Event::data:
        EXPECT_FALSE(reader.data().empty());
        current += reader.data();
        break;
      case MultipartReader::Event::part_end: out.parts.push_back(current); break;
      case MultipartReader::Event::need_more:
        out.most_held = std::max(out.most_held, reader.held_bytes());
        if (offset >= body.size()) {
          reader.finish();
        } else {
          buffer.assign(body, offset, size);
          std::fill(buffer.begin(), buffer.end(), '#');  // the last piece's bytes are gone
          buffer.assign(body, offset, size);
          offset += buffer.size();
          reader.feed(buffer);
        }
        break;
      case MultipartReader::Event::done: return out;
      case MultipartReader::Event::error:
        out.error = reader.error();
        out.parts.clear();
        return out;
    }
  }
}

Streamed whole(const std::string& body, std::string_view boundary, MultipartLimits limits = {}) {
  Streamed out;
  const MultipartResult result = parse_multipart(body, boundary, limits);
  out.error = result.error;
  for (const MultipartPart& part : result.parts) {
    out.parts.push_back(part.name + "|" + part.filename.value_or("-") + "|" + part.content_type + "|" +
                        std::string(part.body));
  }
  return out;
}

const std::vector<std::string> kBodies = {
    "preamble\r\n--XyZ\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nHello\r\n"
    "--XyZ \t \r\nContent-Disposition: form-data; name=\"f\"; filename=\"x.bin\"\r\nContent-Type: image/png\r\n\r\n"
    "\r\n--XyZnot-one\r\n\r\r\n--Xy\r\n-\r\n--XyZ-x\r\n--XyZ--\r\nepilogue",
    "--XyZ\r\n\r\n\r\n--XyZ--",
    "--XyZ--",
    "--XyZx\r\n\r\n--XyZ\r\n\r\nbody\r\n--XyZ--",
    "\r\n--XyZ\r\nA: 1\r\n\r\n--XyZ\r\nB: 2\r\n\r\nz\r\n--XyZ--",
    // malformed: every error the whole-body parser gives
    "no boundary here",
    "--XyZ\r\nContent-Disposition: form-data; name=a\r\n\r\nvalue",
    "--XyZ\r\nContent-Disposition: form-data",
    "--XyZ\r\nnot a field\r\n\r\nx\r\n--XyZ--",
    "--XyZ\r\nA: \x01\r\n\r\nx\r\n--XyZ--",
    "--XyZ\r\n\r\nabc\r\n--XyZ  ",
    "",
};

TEST(MultipartReader, GivesTheWholeBodyParsersPartsAndErrorsForEveryWayOfCuttingTheBody) {
  for (const std::string& body : kBodies) {
    const Streamed expected = whole(body, "XyZ");
    for (std::size_t size = 1; size <= body.size() + 1; ++size) {
      SCOPED_TRACE("body \"" + body + "\" in pieces of " + std::to_string(size));
      const Streamed got = stream(body, "XyZ", size);
      EXPECT_EQ(got.parts, expected.parts);
      EXPECT_EQ(got.error, expected.error);
    }
  }
  EXPECT_EQ(whole(kBodies[0], "XyZ").parts.size(), 2u);
  EXPECT_EQ(whole(kBodies[0], "XyZ").parts[1], "f|x.bin|image/png|\r\n--XyZnot-one\r\n\r\r\n--Xy\r\n-\r\n--XyZ-x");
}

TEST(MultipartReader, AppliesTheLimitsWhereverAPieceEnds) {
  std::string parts;
  for (int i = 0; i < 5; ++i) parts += "--b\r\n\r\nx\r\n";
  parts += "--b--";
  const std::string big = "--b\r\nX-A: " + std::string(100, 'a') + "\r\n\r\nx\r\n--b--";
  for (std::size_t size : {1u, 3u, 7u, 1000u}) {
    EXPECT_EQ(stream(parts, "b", size, {.max_parts = 4}).error, "over 4 parts");
    EXPECT_EQ(stream(parts, "b", size, {.max_parts = 5}).parts.size(), 5u);
    EXPECT_EQ(stream(big, "b", size, {.max_part_header_bytes = 64}).error, "a part's header section is over 64 bytes");
    EXPECT_EQ(stream("--b\r\nA: 1\r\nB: 2\r\n\r\nx\r\n--b--", "b", size, {.max_part_headers = 1}).error,
              "a part has over 1 header fields");
  }
}

// A 4 MiB upload in 16 KiB pieces: the part's bytes pass through as views
// into the pieces, and the reader never holds more than a delimiter's worth.
TEST(MultipartReader, StreamsABigPartHoldingOnlyADelimitersWorth) {
  std::string file(4 << 20, '\0');
  for (std::size_t i = 0; i < file.size(); ++i) {
    file[i] = static_cast<char>("\r\n-b"[i % 4]);  // near-delimiters everywhere
  }
  const std::string boundary = "b0undary";
  const std::string body = "--" + boundary + "\r\nContent-Disposition: form-data; name=\"up\"; filename=\"f\"\r\n\r\n" +
                           file + "\r\n--" + boundary + "--\r\n";
  const Streamed got = stream(body, boundary, 16 << 10);
  ASSERT_EQ(got.error, "");
  ASSERT_EQ(got.parts.size(), 1u);
  EXPECT_EQ(got.parts[0], "up|f|text/plain|" + file);
  EXPECT_LE(got.most_held, std::string("\r\n--").size() + boundary.size() + 2);
}

TEST(MultipartReader, KeepsTransportPaddingBounded) {
  const std::string padded = "--b" + std::string(MultipartReader::kMaxPadding, ' ') + "\r\n\r\nx\r\n--b--";
  EXPECT_EQ(stream(padded, "b", 5).parts.size(), 1u);
  const std::string over = "--b" + std::string(MultipartReader::kMaxPadding + 1, ' ') + "\r\n\r\nx\r\n--b--";
  // Not a delimiter, so all of it up to the closing one is preamble: no parts.
  EXPECT_EQ(stream(over, "b", 5).parts.size(), 0u);
  EXPECT_EQ(stream(over, "b", 5).error, "");
  EXPECT_EQ(whole(over, "b").parts.size(), 0u);
}

}  // namespace
}  // namespace tiffany::http
