// RFC 9110 (HTTP semantics), the server side: fields, content, methods,
// conditional and range requests, status codes; one row per requirement, each
// run over plain TCP and TLS, and (those that apply) over HTTP/2, h2c and h2.
// "{etag}" is the static file's current ETag.
#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "checks.hpp"
#include "conformance.hpp"

namespace tiffany::testing {
namespace {

using namespace checks;

constexpr Then kClose = Then::close;
constexpr Then kKeep = Then::keep_alive;
const std::string kFile = "/static/file.txt";
const std::string kWhole(kFileBody);

// GET (or `method`) of the static file with `fields` (each ending in CRLF).
std::string file(const std::string& fields, const std::string& method = "GET") {
  return method + " " + kFile + " HTTP/1.1\r\nHost: t\r\n" + fields + "\r\n";
}

std::vector<Row> rows() {
  return {
      // §5 Fields
      {"Rfc9110_5_3_RepeatedFieldsKeepTheirOrder", "GET /json/x HTTP/1.1\r\nHost: t\r\nX-A: 1\r\nX-B: b\r\nX-A: 2\r\n\r\n",
       200, kKeep, echoed("X-A", "[\"1\",\"2\"]")},
      {"Rfc9110_5_5_NulInAFieldValueIs400", std::string("GET /plaintext HTTP/1.1\r\nHost: t\r\nX-A: a\0b\r\n\r\n", 46),
       400, kClose},
      // Tiffany's choice: other control bytes in a value are refused too (RFC 9110 §5.5 lets a recipient keep them).
      {"Rfc9110_5_5_AControlByteInAFieldValueIs400", "GET /plaintext HTTP/1.1\r\nHost: t\r\nX-A: a\x01z\r\n\r\n", 400,
       kClose},
      {"Rfc9110_5_5_ObsTextInAFieldValueIsAccepted", "GET /plaintext HTTP/1.1\r\nHost: t\r\nX-A: \x80\xff\r\n\r\n", 200,
       kKeep},
      {"Rfc9110_5_5_AnEmptyFieldValueIsAccepted", "GET /json/x HTTP/1.1\r\nHost: t\r\nX-Empty:\r\nX-B:b\r\n\r\n", 200,
       kKeep, all({echoed("X-Empty", "\"\""), echoed("X-B", "\"b\"")})},
      {"Rfc9110_5_5_HtabInAFieldValueIsAccepted", "GET /plaintext HTTP/1.1\r\nHost: t\r\nX-A: a\tb\r\n\r\n", 200,
       kKeep},
      {"Rfc9110_5_6_2_FieldNamesAreCaseInsensitive", "POST /echo HTTP/1.1\r\nhOsT: t\r\ncontent-LENGTH: 2\r\n\r\nhi",
       200, kKeep, body("hi")},
      // §6 Message abstraction
      {"Rfc9110_6_6_1_ResponsesCarryADate", "GET /plaintext HTTP/1.1\r\nHost: t\r\n\r\n", 200, kKeep, has("Date")},
      {"Rfc9110_6_4_1_A304HasNoContent", file("If-None-Match: *\r\n"), 304, kKeep, body("")},
      // §7 Routing
      {"Rfc9110_7_2_HostMayNameAnyAuthority", "GET /plaintext HTTP/1.1\r\nHost: anything.example\r\n\r\n", 200, kKeep},
      {"Rfc9110_7_1_PathsAreDecodedBeforeRouting", "GET /plain%74ext HTTP/1.1\r\nHost: t\r\n\r\n", 200, kKeep,
       body("Hello, World!")},
      {"Rfc9110_7_1_DotSegmentsAreResolvedBeforeRouting", "GET /static/../plaintext HTTP/1.1\r\nHost: t\r\n\r\n", 200,
       kKeep, body("Hello, World!")},
      // §8 Representation data
      {"Rfc9110_8_3_ContentHasAType", "GET /plaintext HTTP/1.1\r\nHost: t\r\n\r\n", 200, kKeep, has("Content-Type")},
      {"Rfc9110_8_6_ContentLengthIsTheBodySize", "GET /plaintext HTTP/1.1\r\nHost: t\r\n\r\n", 200, kKeep,
       field("Content-Length", "13")},
      {"Rfc9110_8_8_FilesCarryValidators", file(""), 200, kKeep,
       all({has("ETag"), field("Last-Modified", std::string(kFileModified)), body(kWhole)})},
      // RFC 8259 §8.1: JSON is UTF-8; a request's invalid bytes are replaced, not copied.
      {"Rfc9110_8_3_JsonIsValidUtf8ForAnyRequest", "GET /json/%ff%c3 HTTP/1.1\r\nHost: t\r\nX-Raw: \xff\r\n\r\n", 200,
       kKeep, all({body_has("\"path\":\"\\/json\\/\xef\xbf\xbd\xef\xbf\xbd\""), echoed("X-Raw", "\"\xef\xbf\xbd\"")})},
      // §9 Methods
      {"Rfc9110_9_1_AnUnknownMethodIs501", "BREW /plaintext HTTP/1.1\r\nHost: t\r\n\r\n", 501, kClose},
      {"Rfc9110_9_1_AKnownMethodNotRoutedHereIs405WithAllow", "DELETE /plaintext HTTP/1.1\r\nHost: t\r\n\r\n", 405,
       kKeep, field("Allow", "GET, HEAD")},
      {"Rfc9110_9_3_1_AGetBodyIsFramedAndIgnored", "GET /plaintext HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nhello",
       200, kKeep, body("Hello, World!")},
      {"Rfc9110_9_3_2_HeadHasTheHeadersOfGetAndNoBody", "HEAD /plaintext HTTP/1.1\r\nHost: t\r\n\r\n", 200, kKeep,
       all({field("Content-Length", "13"), has("Content-Type"), body("")})},
      {"Rfc9110_9_3_2_HeadOfAFileHasItsLength", file("", "HEAD"), 200, kKeep,
       all({field("Content-Length", "26"), has("ETag"), body("")})},
      {"Rfc9110_9_3_2_HeadOfA404HasNoBody", "HEAD /nope HTTP/1.1\r\nHost: t\r\n\r\n", 404, kKeep, body("")},
      {"Rfc9110_9_3_7_OptionsAsteriskIsAboutTheServer", "OPTIONS * HTTP/1.1\r\nHost: t\r\n\r\n", 200, kKeep, body("")},
      // Tiffany's choice: OPTIONS is routed like any method; where no route takes it, 405 lists those that do.
      {"Rfc9110_9_3_7_OptionsOnAResourceIs405WithAllow", "OPTIONS /plaintext HTTP/1.1\r\nHost: t\r\n\r\n", 405, kKeep,
       field("Allow", "GET, HEAD")},
      // §10.1.1 Expect
      {"Rfc9110_10_1_1_ContinueComesBeforeTheBody",
       "POST /echo HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n", 200, kKeep, body("ping"),
       "ping"},
      {"Rfc9110_10_1_1_ExpectIsCaseInsensitive",
       "POST /echo HTTP/1.1\r\nHost: t\r\nExpect: 100-Continue\r\nContent-Length: 4\r\n\r\n", 200, kKeep, body("ping"),
       "ping"},
      {"Rfc9110_10_1_1_NoRouteIsAnsweredWithoutContinue",
       "POST /nope HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 10\r\n\r\n", 404, kClose,
       no_interim()},
      {"Rfc9110_10_1_1_AnotherMethodsRouteIsAnsweredWithoutContinue",
       "POST /plaintext HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 10\r\n\r\n", 405, kClose,
       all({no_interim(), field("Allow", "GET, HEAD")})},
      {"Rfc9110_10_1_1_ABodyOverTheLimitIsAnsweredWithoutContinue",
       "POST /echo HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 5000\r\n\r\n", 413, kClose,
       no_interim()},
      {"Rfc9110_10_1_1_AnUnknownExpectationIs417",
       "POST /echo HTTP/1.1\r\nHost: t\r\nExpect: teapot\r\nContent-Length: 4\r\n\r\nping", 417, kClose},
      {"Rfc9110_15_2_NoInterimResponseToHttp10",
       "POST /echo HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\nping", 200, kClose,
       all({no_interim(), body("ping")})},
      // §13 Conditional requests (evaluated in the §13.2.2 order)
      {"Rfc9110_13_1_1_IfMatchWithAnotherTagIs412", file("If-Match: \"nope\"\r\n"), 412, kKeep, has("ETag")},
      {"Rfc9110_13_1_1_IfMatchTheCurrentTagIs200", file("If-Match: \"nope\", {etag}\r\n"), 200, kKeep, body(kWhole)},
      {"Rfc9110_13_1_1_IfMatchAsteriskIs200", file("If-Match: *\r\n"), 200, kKeep},
      {"Rfc9110_13_1_1_IfMatchComparesStrongly", file("If-Match: W/{etag}\r\n"), 412, kKeep},
      {"Rfc9110_13_1_2_IfNoneMatchTheCurrentTagIs304", file("If-None-Match: {etag}\r\n"), 304, kKeep,
       all({has("ETag"), body("")})},
      {"Rfc9110_13_1_2_IfNoneMatchComparesWeakly", file("If-None-Match: \"nope\", W/{etag}\r\n"), 304, kKeep},
      {"Rfc9110_13_1_2_IfNoneMatchAsteriskIs304", file("If-None-Match: *\r\n"), 304, kKeep},
      {"Rfc9110_13_1_2_IfNoneMatchAnotherTagIs200", file("If-None-Match: \"nope\"\r\n"), 200, kKeep, body(kWhole)},
      {"Rfc9110_13_1_2_HeadIfNoneMatchIs304", file("If-None-Match: {etag}\r\n", "HEAD"), 304, kKeep},
      {"Rfc9110_13_1_3_IfModifiedSinceTheLastModificationIs304", file("If-Modified-Since: {last_modified}\r\n"), 304,
       kKeep},
      {"Rfc9110_13_1_3_IfModifiedSinceEarlierIs200", file("If-Modified-Since: Mon, 01 Jan 1990 00:00:00 GMT\r\n"), 200,
       kKeep, body(kWhole)},
      {"Rfc9110_13_1_3_IfModifiedSinceInTheFutureIsIgnored",
       file("If-Modified-Since: Fri, 01 Jan 2100 00:00:00 GMT\r\n"), 200, kKeep, body(kWhole)},
      {"Rfc9110_13_1_3_AnInvalidIfModifiedSinceIsIgnored", file("If-Modified-Since: yesterday\r\n"), 200, kKeep},
      {"Rfc9110_5_6_7_TheRfc850DateFormIsAccepted", file("If-Modified-Since: Wednesday, 01-Jan-20 00:00:00 GMT\r\n"),
       304, kKeep},
      {"Rfc9110_5_6_7_TheAsctimeDateFormIsAccepted", file("If-Modified-Since: Wed Jan  1 00:00:00 2020\r\n"), 304,
       kKeep},
      {"Rfc9110_13_1_4_IfUnmodifiedSinceEarlierIs412", file("If-Unmodified-Since: Mon, 01 Jan 1990 00:00:00 GMT\r\n"),
       412, kKeep},
      {"Rfc9110_13_1_4_IfUnmodifiedSinceTheLastModificationIs200", file("If-Unmodified-Since: {last_modified}\r\n"),
       200, kKeep},
      {"Rfc9110_13_1_4_AnInvalidIfUnmodifiedSinceIsIgnored", file("If-Unmodified-Since: long ago\r\n"), 200, kKeep},
      {"Rfc9110_13_2_2_IfMatchOverridesIfUnmodifiedSince",
       file("If-Match: *\r\nIf-Unmodified-Since: Mon, 01 Jan 1990 00:00:00 GMT\r\n"), 200, kKeep},
      {"Rfc9110_13_2_2_AFailedIfMatchWinsOverIfNoneMatch", file("If-Match: \"nope\"\r\nIf-None-Match: *\r\n"), 412,
       kKeep},
      {"Rfc9110_13_2_2_IfNoneMatchOverridesIfModifiedSince",
       file("If-None-Match: \"nope\"\r\nIf-Modified-Since: {last_modified}\r\n"), 200, kKeep, body(kWhole)},
      {"Rfc9110_13_2_2_PreconditionsComeBeforeTheRange", file("If-Match: \"nope\"\r\nRange: bytes=0-1\r\n"), 412,
       kKeep},
      {"Rfc9110_13_1_5_IfRangeWithTheCurrentTagGives206", file("If-Range: {etag}\r\nRange: bytes=0-1\r\n"), 206, kKeep,
       body("ab")},
      {"Rfc9110_13_1_5_IfRangeWithAWeakTagGivesItAll", file("If-Range: W/{etag}\r\nRange: bytes=0-1\r\n"), 200, kKeep,
       body(kWhole)},
      {"Rfc9110_13_1_5_IfRangeWithAnotherTagGivesItAll", file("If-Range: \"nope\"\r\nRange: bytes=0-1\r\n"), 200, kKeep,
       body(kWhole)},
      {"Rfc9110_13_1_5_IfRangeWithTheLastModificationGives206", file("If-Range: {last_modified}\r\nRange: bytes=0-1\r\n"),
       206, kKeep, body("ab")},
      {"Rfc9110_13_1_5_IfRangeWithAnotherDateGivesItAll",
       file("If-Range: Mon, 01 Jan 1990 00:00:00 GMT\r\nRange: bytes=0-1\r\n"), 200, kKeep, body(kWhole)},
      // §14 Range requests (the file is the 26 letters)
      {"Rfc9110_14_2_ASingleRangeIs206", file("Range: bytes=0-4\r\n"), 206, kKeep,
       all({body("abcde"), field("Content-Range", "bytes 0-4/26"), field("Content-Length", "5")})},
      {"Rfc9110_14_1_2_ASuffixRange", file("Range: bytes=-3\r\n"), 206, kKeep, body("xyz")},
      {"Rfc9110_14_1_2_AnOpenEndedRange", file("Range: bytes=23-\r\n"), 206, kKeep, body("xyz")},
      {"Rfc9110_14_1_2_ALastPositionPastTheEndIsClamped", file("Range: bytes=20-100\r\n"), 206, kKeep,
       all({body("uvwxyz"), field("Content-Range", "bytes 20-25/26")})},
      {"Rfc9110_14_1_2_ASuffixLongerThanTheFileIsAllOfIt", file("Range: bytes=-100\r\n"), 206, kKeep, body(kWhole)},
      {"Rfc9110_14_1_1_AnOverflowingLastPositionIsClamped", file("Range: bytes=24-99999999999999999999999\r\n"), 206,
       kKeep, body("yz")},
      {"Rfc9110_14_1_1_AnOverflowingFirstPositionIs416", file("Range: bytes=99999999999999999999999-\r\n"), 416, kKeep,
       field("Content-Range", "bytes */26")},
      // Tiffany's choice (RFC 9110 §14.2 MAY ignore or reject an invalid range): ignored, the whole file.
      {"Rfc9110_14_1_1_AnInvertedRangeIsIgnored", file("Range: bytes=5-2\r\n"), 200, kKeep, body(kWhole)},
      {"Rfc9110_14_1_AnInvalidRangeIsIgnored", file("Range: bytes=abc\r\n"), 200, kKeep, body(kWhole)},
      {"Rfc9110_14_1_TheRangeUnitIsCaseInsensitive", file("Range: Bytes=0-1\r\n"), 206, kKeep, body("ab")},
      // Tiffany's choice: blanks around the range spec are taken as list whitespace, as nginx does.
      {"Rfc9110_14_1_BlanksAroundTheSpecAreAccepted", file("Range: bytes= 0-1\r\n"), 206, kKeep, body("ab")},
      {"Rfc9110_14_2_AnUnknownRangeUnitIsIgnored", file("Range: items=0-1\r\n"), 200, kKeep, body(kWhole)},
      // Tiffany's choice (RFC 9110 §14.2 MAY ignore a Range): several ranges get the whole file, not multipart.
      {"Rfc9110_14_2_SeveralRangesGetTheWholeFile", file("Range: bytes=0-1,4-5\r\n"), 200, kKeep, body(kWhole)},
      {"Rfc9110_14_2_RangeIsIgnoredForOtherMethods",
       "POST /echo HTTP/1.1\r\nHost: t\r\nRange: bytes=0-1\r\nContent-Length: 5\r\n\r\nhello", 200, kKeep, body("hello")},
      {"Rfc9110_14_3_FilesAdvertiseByteRanges", file(""), 200, kKeep, field("Accept-Ranges", "bytes")},
      {"Rfc9110_14_4_UnsatisfiableIs416WithTheLength", file("Range: bytes=30-\r\n"), 416, kKeep,
       field("Content-Range", "bytes */26")},
      {"Rfc9110_14_4_AZeroSuffixIs416", file("Range: bytes=-0\r\n"), 416, kKeep},
      // RFC 9110 §9.3.2: HEAD answers what GET would, minus the body.
      {"Rfc9110_9_3_2_HeadWithARangeIs206WithoutTheBody", file("Range: bytes=0-4\r\n", "HEAD"), 206, kKeep,
       all({field("Content-Range", "bytes 0-4/26"), field("Content-Length", "5"), body("")})},
      // §15 Status codes
      {"Rfc9110_15_5_5_AnUnknownPathIs404", "GET /nope HTTP/1.1\r\nHost: t\r\n\r\n", 404, kKeep},
      {"Rfc9110_15_5_6_A405ListsTheAllowedMethods", "PUT /static/file.txt HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n",
       405, kKeep, field("Allow", "GET, HEAD")},
      {"Rfc9110_15_5_14_ABodyOverTheLimitIs413BeforeItIsRead",
       "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 5000\r\n\r\n", 413, kClose},
      {"Rfc9110_15_5_15_ATargetOverTheLimitIs414", "GET /" + std::string(600, 'a') + " HTTP/1.1\r\nHost: t\r\n\r\n", 414,
       kClose},
      // RFC 6585 §5
      {"Rfc6585_5_AHeaderSectionOverTheLimitIs431",
       "GET /plaintext HTTP/1.1\r\nHost: t\r\nX-Big: " + std::string(5000, 'b') + "\r\n\r\n", 431, kClose},
  };
}

// The rows that do not apply to HTTP/2, and why; every other row runs over h2c and h2 too.
// "Server:" marks a row that applies but fails over HTTP/2 today: the server is
// wrong there (server/http2/), and the row joins the others once it is fixed.
const std::map<std::string, std::string>& not_over_http2() {
  static const std::map<std::string, std::string> rows = {
      {"Rfc9110_5_5_NulInAFieldValueIs400",
       "a NUL makes an HTTP/2 request malformed (RFC 9113 §8.2.1): a stream error, not a 400; "
       "Rfc9113_8_2_1_ANulInAValueIsMalformed"},
      {"Rfc9110_5_6_2_FieldNamesAreCaseInsensitive",
       "HTTP/2 names are lower case, upper case is malformed (RFC 9113 §8.2.1): Rfc9113_8_2_1_AnUpperCaseNameIsMalformed"},
      {"Rfc9110_5_5_AControlByteInAFieldValueIs400",
       "nghttp2 resets a stream whose values hold a control byte (PROTOCOL_ERROR), which RFC 9113 §8.2.1 allows: "
       "Rfc9113_8_2_1_AControlByteInAValueIsMalformed"},
      {"Rfc9110_15_2_NoInterimResponseToHttp10", "an HTTP/1.0 request: no HTTP/2 form"},
  };
  return rows;
}

std::vector<Row> http2_rows() {
  std::vector<Row> all = rows();
  std::erase_if(all, [](const Row& row) { return not_over_http2().contains(row.name); });
  return all;
}

class Rfc9110 : public ConformanceTest {};

TEST_P(Rfc9110, Holds) { run_row(std::get<0>(GetParam()), std::get<1>(GetParam())); }

INSTANTIATE_TEST_SUITE_P(Rows, Rfc9110, ::testing::Combine(::testing::ValuesIn(rows()),
                                                           ::testing::Values(Transport::tcp, Transport::tls)),
                         row_test_name);
INSTANTIATE_TEST_SUITE_P(Http2Rows, Rfc9110, ::testing::Combine(::testing::ValuesIn(http2_rows()),
                                                                ::testing::Values(Transport::h2c, Transport::h2)),
                         row_test_name);

// Why: a renamed row must not leave a stale name here and so run over HTTP/2 unnoticed.
TEST(Rfc9110Http2, EveryRowLeftOutExists) {
  const std::vector<Row> all = rows();
  for (const auto& [name, why] : not_over_http2()) {
    EXPECT_TRUE(std::any_of(all.begin(), all.end(), [&](const Row& row) { return row.name == name; })) << name;
  }
}

// Why: README states how many RFC 9110 rows run over HTTP/2 and how many are
// left out; when a row is added or joins HTTP/2, the page must say so too.
TEST(Rfc9110Http2, ReadmeCountsTheRowsLeftOut) {
  std::ifstream file(std::string(TIFFANY_SOURCE_DIR) + "/README.md");
  ASSERT_TRUE(file) << "README.md not found under " << TIFFANY_SOURCE_DIR;
  std::stringstream readme;
  readme << file.rdbuf();
  std::string text = readme.str();
  std::replace(text.begin(), text.end(), '\n', ' ');  // the sentence may wrap anywhere
  const std::size_t all = rows().size();
  const std::size_t left_out = not_over_http2().size();
  const std::string applies = "(" + std::to_string(all - left_out) + " of " + std::to_string(all) + ")";
  const std::string lists = "lists the " + std::to_string(left_out) + " left out";
  EXPECT_NE(text.find("The RFC 9110 rows that apply to HTTP/2 " + applies), std::string::npos)
      << "README.md should say \"The RFC 9110 rows that apply to HTTP/2 " << applies << "\"";
  EXPECT_NE(text.find(lists), std::string::npos) << "README.md should say \"" << lists << "\"";
}

}  // namespace
}  // namespace tiffany::testing
