// multipart/form-data: parts, names and files, and every malformed shape refused.
#include <gtest/gtest.h>

#include <tiffany/http/multipart.hpp>
#include <tiffany/http/request.hpp>

namespace tiffany::http {
namespace {

const std::string kBody =
    "preamble to ignore\r\n"
    "--XyZ\r\n"
    "Content-Disposition: form-data; name=\"title\"\r\n"
    "\r\n"
    "Hello\r\n"
    "--XyZ  \r\n"
    "Content-Disposition: form-data; name=\"file\"; filename=\"a \\\"b\\\".txt\"\r\n"
    "Content-Type: application/octet-stream\r\n"
    "\r\n"
    "line1\r\n--XyZnot-a-boundary\r\nline3\r\n"
    "--XyZ--\r\n"
    "epilogue";

TEST(Multipart, SplitsPartsWithNamesFilenamesAndTypes) {
  const MultipartResult result = parse_multipart(kBody, "XyZ");
  ASSERT_TRUE(result.ok()) << result.error;
  ASSERT_EQ(result.parts.size(), 2u);
  EXPECT_EQ(result.parts[0].name, "title");
  EXPECT_FALSE(result.parts[0].filename);
  EXPECT_EQ(result.parts[0].content_type, "text/plain");
  EXPECT_EQ(result.parts[0].body, "Hello");
  EXPECT_EQ(result.parts[1].name, "file");
  EXPECT_EQ(result.parts[1].filename, "a \"b\".txt");
  EXPECT_EQ(result.parts[1].content_type, "application/octet-stream");
  EXPECT_EQ(result.parts[1].body, "line1\r\n--XyZnot-a-boundary\r\nline3");
}

TEST(Multipart, ReadsTheBoundaryFromARequestsContentType) {
  Request request;
  request.headers.add("Content-Type", "multipart/form-data; boundary=\"XyZ\"");
  request.body = kBody;
  EXPECT_EQ(parse_multipart(request).parts.size(), 2u);
  request.headers.set("Content-Type", "application/json");
  EXPECT_EQ(parse_multipart(request).error, "expected Content-Type multipart/form-data");
  EXPECT_EQ(multipart_boundary("multipart/form-data; charset=x; boundary=abc"), "abc");
  EXPECT_FALSE(multipart_boundary("multipart/form-data"));
  EXPECT_FALSE(multipart_boundary("multipart/form-data; boundary=" + std::string(71, 'a')));
  EXPECT_FALSE(multipart_boundary("text/plain; boundary=abc"));
}

TEST(Multipart, RefusesMalformedBodiesSayingWhy) {
  const auto error = [](std::string body) { return parse_multipart(body, "b").error; };
  EXPECT_EQ(error("no boundary at all"), "no multipart boundary in the body");
  EXPECT_EQ(error("--b\r\nContent-Disposition: form-data; name=a\r\n\r\nvalue"),
            "the multipart body ends before its closing boundary");
  EXPECT_EQ(error("--b\r\nContent-Disposition: form-data"), "a part's header section does not end");
  EXPECT_EQ(error("--b\r\nnot a field\r\n\r\nx\r\n--b--"), "a part's header line is not a field");
  EXPECT_EQ(error("--bx\r\n\r\n--b\r\n"), "a part's header section does not end");  // "--bx" is no delimiter
  EXPECT_EQ(error("--bx\r\n"), "no multipart boundary in the body");
  EXPECT_TRUE(parse_multipart("--b--", "b").ok());
}

TEST(Multipart, BoundsPartsAndHeaders) {
  std::string body;
  for (int i = 0; i < 5; ++i) body += "--b\r\n\r\nx\r\n";
  body += "--b--";
  EXPECT_EQ(parse_multipart(body, "b").parts.size(), 5u);
  EXPECT_EQ(parse_multipart(body, "b", MultipartLimits{.max_parts = 4}).error, "over 4 parts");
  const std::string big = "--b\r\nX-A: " + std::string(100, 'a') + "\r\n\r\nx\r\n--b--";
  EXPECT_EQ(parse_multipart(big, "b", MultipartLimits{.max_part_header_bytes = 64}).error,
            "a part's header section is over 64 bytes");
  EXPECT_EQ(parse_multipart("--b\r\nA: 1\r\nB: 2\r\n\r\nx\r\n--b--", "b", MultipartLimits{.max_part_headers = 1}).error,
            "a part has over 1 header fields");
}

}  // namespace
}  // namespace tiffany::http
