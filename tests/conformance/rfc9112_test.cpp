// RFC 9112 (HTTP/1.1 message syntax, framing, connection management): one row
// per requirement on a server, each run over plain TCP and TLS.
#include <string>
#include <vector>

#include "checks.hpp"
#include "conformance.hpp"

namespace tiffany::testing {
namespace {

using namespace checks;

const std::string kGet = "GET /plaintext HTTP/1.1\r\nHost: t\r\n";  // a request line and Host; add "\r\n" to end it
constexpr Then kClose = Then::close;
constexpr Then kKeep = Then::keep_alive;

std::vector<Row> rows() {
  return {
      // §2.2 Message parsing
      {"Rfc9112_2_2_LeadingEmptyLinesAreIgnored", "\r\n\r\n" + kGet + "\r\n", 200, kKeep, body("Hello, World!")},
      {"Rfc9112_2_2_BareCrInAFieldValueIs400", kGet + "X-A: a\rb\r\n\r\n", 400, kClose},
      {"Rfc9112_2_2_BareCrEndingTheHeaderSectionIs400", kGet + "\rX\r\n\r\n", 400, kClose},
      {"Rfc9112_2_2_BareCrInTheRequestLineIs400", "GET /plaintext HTTP/1.1\rHost: t\r\n\r\n", 400, kClose},
      // Tiffany's choice: a lone LF is not taken as a line end (RFC 9112 §2.2 MAY).
      {"Rfc9112_2_2_BareLfLineEndsAre400", "GET /plaintext HTTP/1.1\nHost: t\n\n", 400, kClose},
      {"Rfc9112_2_2_WhitespaceBeforeTheFirstFieldIs400", "GET /plaintext HTTP/1.1\r\n Host: t\r\n\r\n", 400, kClose},
      // §2.3 HTTP version
      {"Rfc9112_2_3_AHigherMinorVersionIsAnsweredAs11", "GET /plaintext HTTP/1.2\r\nHost: t\r\n\r\n", 200, kKeep,
       body("Hello, World!")},
      {"Rfc9112_2_3_Http10IsAnsweredWithAnHttp11StatusLine", "GET /plaintext HTTP/1.0\r\n\r\n", 200, kClose,
       body("Hello, World!")},
      {"Rfc9112_2_3_Http20InARequestLineIs505", "GET /plaintext HTTP/2.0\r\nHost: t\r\n\r\n", 505, kClose},
      {"Rfc9112_2_3_Http30Is505", "GET /plaintext HTTP/3.0\r\nHost: t\r\n\r\n", 505, kClose},
      {"Rfc9112_2_3_Http09VersionIs505", "GET /plaintext HTTP/0.9\r\n\r\n", 505, kClose},
      {"Rfc9112_2_3_TheHttpNameIsCaseSensitive", "GET /plaintext http/1.1\r\nHost: t\r\n\r\n", 400, kClose},
      {"Rfc9112_2_3_AVersionHasOneDigitEachSide", "GET /plaintext HTTP/1.10\r\nHost: t\r\n\r\n", 400, kClose},
      {"Rfc9112_2_3_TheHttp2PrefaceIs505", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 505, kClose},
      // §3 Request line
      {"Rfc9112_3_AnUnknownWellFormedMethodIs501", "BREW /plaintext HTTP/1.1\r\nHost: t\r\n\r\n", 501, kClose},
      {"Rfc9112_3_MethodsAreCaseSensitive", "get /plaintext HTTP/1.1\r\nHost: t\r\n\r\n", 501, kClose},
      {"Rfc9112_3_AMethodThatIsNotATokenIs400", "GE(T /plaintext HTTP/1.1\r\nHost: t\r\n\r\n", 400, kClose},
      {"Rfc9112_3_ARequestLineWithAnExtraWordIs400", "GET /plaintext HTTP/1.1 x\r\nHost: t\r\n\r\n", 400, kClose},
      {"Rfc9112_3_AnUnknownMethodOnAMalformedLineIs400", "BREW /plaintext HTTQ/1.1\r\nHost: t\r\n\r\n", 400, kClose},
      {"Rfc9112_3_AMissingTargetIs400", "GET HTTP/1.1\r\nHost: t\r\n\r\n", 400, kClose},
      {"Rfc9112_3_ATabAsSeparatorIs400", "GET\t/plaintext HTTP/1.1\r\nHost: t\r\n\r\n", 400, kClose},
      {"Rfc9112_3_ATrailingSpaceInTheRequestLineIs400", "GET /plaintext HTTP/1.1 \r\nHost: t\r\n\r\n", 400, kClose},
      // Tiffany's choice: runs of spaces between the words are taken (RFC 9112 §3 MAY), as nginx does.
      {"Rfc9112_3_RepeatedSpacesBetweenWordsAreAccepted", "GET  /plaintext HTTP/1.1\r\nHost: t\r\n\r\n", 200, kKeep},
      // §3.2 Request target and Host
      {"Rfc9112_3_2_RequestWithoutHostIs400", "GET /plaintext HTTP/1.1\r\n\r\n", 400, kClose},
      {"Rfc9112_3_2_HostIsJudgedBeforeTheBodyArrives", "POST /echo HTTP/1.1\r\nContent-Length: 10\r\n\r\n", 400,
       kClose},
      {"Rfc9112_3_2_TwoHostFieldsAre400", kGet + "Host: t\r\n\r\n", 400, kClose},
      {"Rfc9112_3_2_TwoHostFieldsInAnyCaseAre400", kGet + "host: u\r\n\r\n", 400, kClose},
      {"Rfc9112_3_2_AnEmptyHostIs400", "GET /plaintext HTTP/1.1\r\nHost:\r\n\r\n", 400, kClose},
      {"Rfc9112_3_2_AHostWithASpaceIs400", "GET /plaintext HTTP/1.1\r\nHost: a b\r\n\r\n", 400, kClose},
      {"Rfc9112_3_2_AHostWithUserinfoIs400", "GET /plaintext HTTP/1.1\r\nHost: user@a\r\n\r\n", 400, kClose},
      {"Rfc9112_3_2_AHostWithAPathIs400", "GET /plaintext HTTP/1.1\r\nHost: a/b\r\n\r\n", 400, kClose},
      {"Rfc9112_3_2_AHostWithABadPortIs400", "GET /plaintext HTTP/1.1\r\nHost: a:8x\r\n\r\n", 400, kClose},
      {"Rfc9112_3_2_AHostWithAPortIsAccepted", "GET /plaintext HTTP/1.1\r\nHost: example.com:8080\r\n\r\n", 200,
       kKeep},
      {"Rfc9112_3_2_AnIpLiteralHostIsAccepted", "GET /plaintext HTTP/1.1\r\nHost: [::1]:8080\r\n\r\n", 200, kKeep},
      {"Rfc9112_3_2_Http10WithoutHostIsAccepted", "GET /plaintext HTTP/1.0\r\n\r\n", 200, kClose},
      {"Rfc9112_3_2_Http10WithTwoHostsIs400", "GET /plaintext HTTP/1.0\r\nHost: a\r\nHost: b\r\n\r\n", 400, kClose},
      {"Rfc9112_3_2_1_OriginFormWithAQueryIsRouted", "GET /plaintext?a=1 HTTP/1.1\r\nHost: t\r\n\r\n", 200, kKeep},
      {"Rfc9112_3_2_2_AbsoluteFormIsAcceptedAndItsHostWins",
       "GET http://example.com/plaintext HTTP/1.1\r\nHost: other.example\r\n\r\n", 200, kKeep, body("Hello, World!")},
      {"Rfc9112_3_2_2_AbsoluteFormStillNeedsAHostField", "GET http://example.com/plaintext HTTP/1.1\r\n\r\n", 400,
       kClose},
      {"Rfc9112_3_2_2_AbsoluteFormWithUserinfoIs400",
       "GET http://user@example.com/plaintext HTTP/1.1\r\nHost: example.com\r\n\r\n", 400, kClose},
      {"Rfc9112_3_2_2_AbsoluteFormWithAnEmptyHostIs400", "GET http:///plaintext HTTP/1.1\r\nHost: t\r\n\r\n", 400,
       kClose},
      {"Rfc9112_3_2_3_AuthorityFormIsOnlyForConnect", "GET example.com:80 HTTP/1.1\r\nHost: t\r\n\r\n", 400, kClose},
      // Tiffany is an origin server, not a proxy: CONNECT is a method it does not implement.
      {"Rfc9112_3_2_3_ConnectIs501", "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n", 501,
       kClose},
      {"Rfc9112_3_2_4_AsteriskFormIsOnlyForOptions", "GET * HTTP/1.1\r\nHost: t\r\n\r\n", 400, kClose},
      {"Rfc9112_3_2_4_OptionsAsteriskIsAnswered", "OPTIONS * HTTP/1.1\r\nHost: t\r\n\r\n", 200, kKeep,
       field("Content-Length", "0")},
      {"Rfc9112_3_RawNonAsciiInTheTargetIs400", "GET /plaintext\xc3\xa9 HTTP/1.1\r\nHost: t\r\n\r\n", 400, kClose},
      {"Rfc9112_3_AControlByteInTheTargetIs400", "GET /plain\x01text HTTP/1.1\r\nHost: t\r\n\r\n", 400, kClose},
      // §5 Field syntax
      {"Rfc9112_5_1_WhitespaceBeforeTheColonIs400", "GET /plaintext HTTP/1.1\r\nHost : t\r\n\r\n", 400, kClose},
      {"Rfc9112_5_1_AFieldNameWithASpaceIs400", kGet + "Content Length: 5\r\n\r\nhello", 400, kClose},
      {"Rfc9112_5_1_AnEmptyFieldNameIs400", kGet + ": empty\r\n\r\n", 400, kClose},
      {"Rfc9112_5_1_AFieldLineWithoutAColonIs400", kGet + "No-Colon\r\n\r\n", 400, kClose},
      {"Rfc9112_5_1_WhitespaceAroundAValueIsNotPartOfIt", "GET /json/x HTTP/1.1\r\nHost: t\r\nX-Padded: \t v w \t\r\n\r\n",
       200, kKeep, body_has("\"X-Padded\":\"v w\"")},
      {"Rfc9112_5_2_ObsFoldIs400", kGet + "X-A: a\r\n\tTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\nabc", 400,
       kClose},
      {"Rfc9112_5_2_ObsFoldAfterAnEmptyValueIs400", kGet + "X-A:\r\n b\r\n\r\n", 400, kClose},
      // §6 Message body
      {"Rfc9112_6_1_AChunkedBodyIsRead",
       "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n", 200,
       kKeep, body("hello world")},
      {"Rfc9112_6_1_ChunkedIsCaseInsensitive",
       "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: Chunked\r\n\r\n2\r\nhi\r\n0\r\n\r\n", 200, kKeep, body("hi")},
      // Tiffany's choice: Transfer-Encoding in HTTP/1.0 is faulty framing (RFC 9112 §6.1): refused, not guessed at.
      {"Rfc9112_6_1_Http10WithTransferEncodingIs400AndCloses",
       "POST /echo HTTP/1.0\r\nTransfer-Encoding: chunked\r\nConnection: keep-alive\r\n\r\n0\r\n\r\n", 400, kClose},
      {"Rfc9112_6_1_AnUnknownCodingBeforeChunkedIs501",
       "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n", 501, kClose},
      {"Rfc9112_6_3_ChunkedNotLastIs400", "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked, gzip\r\n\r\n",
       400, kClose},
      {"Rfc9112_6_3_AnUnknownCodingAloneIs400", "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: gzip\r\n\r\n",
       400, kClose},
      {"Rfc9112_6_3_ChunkedTwiceIs400",
       "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400,
       kClose},
      {"Rfc9112_6_3_AnEmptyTransferEncodingWithContentLengthIs400",
       "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding:\r\nContent-Length: 3\r\n\r\nabc", 400, kClose},
      // Tiffany's choice: both framings at once are refused (RFC 9112 §6.3 MAY), and the connection closes (MUST).
      {"Rfc9112_6_3_TransferEncodingWithContentLengthIs400AndCloses",
       "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400,
       kClose},
      {"Rfc9112_6_3_DifferingContentLengthsAre400",
       "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 4\r\nContent-Length: 5\r\n\r\nabcde", 400, kClose},
      // Tiffany's choice: a list of equal lengths is refused too (RFC 9112 §6.3 MAY accept it).
      {"Rfc9112_6_3_AContentLengthListIs400", "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 3, 3\r\n\r\nabc", 400,
       kClose},
      {"Rfc9112_6_3_ASignedContentLengthIs400", "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: +3\r\n\r\nabc", 400,
       kClose},
      {"Rfc9112_6_3_ANonNumericContentLengthIs400", "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: abc\r\n\r\n",
       400, kClose},
      {"Rfc9112_6_3_ContentLengthFramesTheBody", "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nhello",
       200, kKeep, body("hello")},
      {"Rfc9112_6_3_NoLengthMeansNoBody", "POST /echo HTTP/1.1\r\nHost: t\r\n\r\n", 200, kKeep, body("")},
      // §7 Chunked transfer coding
      // Known limit: Debian's llhttp 8.1 refuses an extension after a token value ("5;a=b;c=d": 400).
      {"Rfc9112_7_1_1_ChunkExtensionsAreIgnored",
       "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n5;a;b=\"c;d\";e=f\r\nhello\r\n0\r\n\r\n", 200,
       kKeep, body("hello")},
      {"Rfc9112_7_1_ChunkSizeOverflowIs400",
       "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n10000000000000000\r\n", 400, kClose},
      {"Rfc9112_7_1_AChunkSizeOf2To64Minus1Is400",
       "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffff\r\n", 400, kClose},
      {"Rfc9112_7_1_AChunkSizeThatIsNotHexIs400",
       "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400, kClose},
      {"Rfc9112_7_1_WhitespaceAfterAChunkSizeIs400",
       "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n5 \r\nhello\r\n0\r\n\r\n", 400, kClose},
      {"Rfc9112_7_1_ChunkDataMustEndWithCrlf",
       "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhelloX\r\n0\r\n\r\n", 400, kClose},
      {"Rfc9112_7_1_ABareLfInAChunkIs400",
       "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n5\nhello\n0\n\n", 400, kClose},
      {"Rfc9112_7_1_2_TrailerFieldsAreAccepted",
       "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhi\r\n0\r\nX-Trailer: v\r\n\r\n", 200,
       kKeep, body("hi")},
      {"Rfc9112_7_1_AChunkOverTheBodyLimitIs413AtItsSizeLine",
       "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n800\r\n", 413, kClose},
      // §9 Connection management
      {"Rfc9112_9_3_Http11IsPersistentByDefault", kGet + "\r\n", 200, kKeep},
      {"Rfc9112_9_3_Http10ClosesByDefault", "GET /plaintext HTTP/1.0\r\nHost: t\r\n\r\n", 200, kClose},
      {"Rfc9112_9_3_Http10KeepAliveStaysOpen", "GET /plaintext HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", 200, kKeep,
       field("Connection", "keep-alive")},
      {"Rfc9112_9_6_CloseEndsTheConnectionAfterTheResponse", kGet + "Connection: close\r\n\r\n", 200, kClose,
       body("Hello, World!")},
      {"Rfc9112_9_6_CloseAmongOtherOptionsCounts", kGet + "Connection: keep-alive, close\r\n\r\n", 200, kClose},
      {"Rfc9112_9_6_CloseIsCaseInsensitive", kGet + "Connection: CLOSE\r\n\r\n", 200, kClose},
      {"Rfc9112_9_3_2_PipelinedRequestsAreAnsweredInOrder",
       "GET /plaintext HTTP/1.1\r\nHost: t\r\n\r\nPOST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\n\r\nabc"
       "GET /nope HTTP/1.1\r\nHost: t\r\n\r\n",
       200, kKeep, all({statuses({200, 200, 404}), bodies({"Hello, World!", "abc", "404 Not Found\n"})}), "", 3},
      {"Rfc9112_9_3_2_ARequestAfterAnErrorIsNotAnswered", kGet + "\r\nGET /plaintext HTTP/1.1\r\n\r\n" + kGet + "\r\n",
       200, kClose, statuses({200, 400}), "", 2},
      {"Rfc9112_9_3_2_ARequestAfterCloseIsNotAnswered", kGet + "Connection: close\r\n\r\n" + kGet + "\r\n", 200,
       kClose},
      // RFC 9110 §15.5.9: a request not finished in time gets 408 and a close.
      {"Rfc9112_9_5_AnUnfinishedHeaderSectionGets408", kGet, 408, kClose},
  };
}

class Rfc9112 : public ConformanceTest {};

TEST_P(Rfc9112, Holds) { run_row(std::get<0>(GetParam()), std::get<1>(GetParam())); }

INSTANTIATE_TEST_SUITE_P(Rows, Rfc9112, ::testing::Combine(::testing::ValuesIn(rows()),
                                                           ::testing::Values(Transport::tcp, Transport::tls)),
                         row_test_name);

}  // namespace
}  // namespace tiffany::testing
