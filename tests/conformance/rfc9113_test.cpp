// RFC 9113 §8 (HTTP/2 message exchanges), the server side: framing, field
// validity, pseudo-fields, CONNECT; one row per requirement, each over h2c and
// h2, each also checking that the connection still answers a next stream
// (a malformed request is a stream error, RFC 9113 §8.1.1, not a connection one).
#include <string>
#include <vector>

#include "conformance.hpp"

namespace tiffany::testing {
namespace {

using Fields = std::vector<std::pair<std::string, std::string>>;

constexpr std::uint32_t kProtocolError = 0x1;  // RFC 9113 §7

// A well-formed request's pseudo-fields, then `more`.
Fields request(const std::string& method, const std::string& path, const Fields& more = {}) {
  Fields fields = {{":method", method}, {":scheme", "{scheme}"}, {":path", path}, {":authority", "t"}};
  fields.insert(fields.end(), more.begin(), more.end());
  return fields;
}

Fields get(const Fields& more = {}) { return request("GET", "/plaintext", more); }

H2Row answered(std::string name, Fields headers, int status, std::vector<std::string> data = {},
               std::function<void(const Reply&)> check = nullptr) {
  H2Row row;
  row.name = std::move(name);
  row.headers = std::move(headers);
  row.data = std::move(data);
  row.status = status;
  row.check = std::move(check);
  return row;
}

H2Row malformed(std::string name, Fields headers, std::vector<std::string> data = {}) {
  H2Row row;
  row.name = std::move(name);
  row.headers = std::move(headers);
  row.data = std::move(data);
  row.reset = kProtocolError;
  return row;
}

// `row` with a trailer section after its DATA.
H2Row with_trailers(H2Row row, Fields trailers, bool end_stream = true) {
  row.trailers = std::move(trailers);
  row.trailers_end_stream = end_stream;
  return row;
}

std::function<void(const Reply&)> body(std::string expected) {
  return [expected](const Reply& reply) { EXPECT_EQ(reply.body, expected); };
}

std::function<void(const Reply&)> body_has(std::string part) {
  return [part](const Reply& reply) { EXPECT_NE(reply.body.find(part), std::string::npos) << reply.body; };
}

std::vector<H2Row> rows() {
  return {
      // §8.1 Message framing
      answered("Rfc9113_8_1_ABodyInDataFramesIsTheContent", request("POST", "/echo"), 200, {"hel", "lo"},
               body("hello")),
      answered("Rfc9113_8_1_1_AContentLengthMatchingTheDataIsAccepted",
               request("POST", "/echo", {{"content-length", "5"}}), 200, {"hello"}, body("hello")),
      malformed("Rfc9113_8_1_1_AContentLengthAboveTheDataIsMalformed",
                request("POST", "/echo", {{"content-length", "9"}}), {"hello"}),
      malformed("Rfc9113_8_1_1_AContentLengthBelowTheDataIsMalformed",
                request("POST", "/echo", {{"content-length", "2"}}), {"hello"}),
      malformed("Rfc9113_8_1_1_AContentLengthWithoutDataIsMalformed", get({{"content-length", "3"}})),
      with_trailers(answered("Rfc9113_8_1_TrailersEndTheRequest", request("POST", "/echo"), 200, {"hello"}, body("hello")),
                    {{"x-checksum", "1"}}),
      // Why a HEADERS without END_STREAM after the first: only trailers may follow, and they end the stream.
      with_trailers(malformed("Rfc9113_8_1_TrailersThatDoNotEndTheStreamAreMalformed", request("POST", "/echo"),
                              {"hello"}),
                    {{"x-checksum", "1"}}, false),
      with_trailers(malformed("Rfc9113_8_1_APseudoFieldInTrailersIsMalformed", request("POST", "/echo"), {"hello"}),
                    {{":path", "/echo"}}),
      // §8.2 Fields
      answered("Rfc9113_8_2_ALowerCaseFieldIsAccepted", request("GET", "/json/x", {{"x-a", "b"}}), 200, {},
               body_has("\"x-a\":\"b\"")),
      malformed("Rfc9113_8_2_AnUpperCaseNameIsMalformed", get({{"X-Upper", "a"}})),
      // §8.2.1 Field validity
      malformed("Rfc9113_8_2_1_ANulInAValueIsMalformed", get({{"x-a", std::string("a\0b", 3)}})),
      malformed("Rfc9113_8_2_1_ACrInAValueIsMalformed", get({{"x-a", "a\rb"}})),
      malformed("Rfc9113_8_2_1_ALfInAValueIsMalformed", get({{"x-a", "a\nb"}})),
      // RFC 9113 §8.2.1 lets a recipient treat other invalid bytes (RFC 9110 §5.5) so too; nghttp2 does.
      malformed("Rfc9113_8_2_1_AControlByteInAValueIsMalformed", get({{"x-a", "a\x01z"}})),
      answered("Rfc9113_8_2_1_ObsTextInAValueIsAccepted", get({{"x-a", "\x80\xff"}}), 200),
      malformed("Rfc9113_8_2_1_AValueStartingWithASpaceIsMalformed", get({{"x-a", " a"}})),
      malformed("Rfc9113_8_2_1_AValueEndingWithATabIsMalformed", get({{"x-a", "a\t"}})),
      malformed("Rfc9113_8_2_1_ANameWithASpaceIsMalformed", get({{"x a", "b"}})),
      malformed("Rfc9113_8_2_1_ANameWithAColonIsMalformed", get({{"x:a", "b"}})),
      malformed("Rfc9113_8_2_1_AnEmptyNameIsMalformed", get({{"", "b"}})),
      // §8.2.2 Connection-specific fields
      malformed("Rfc9113_8_2_2_ConnectionIsMalformed", get({{"connection", "keep-alive"}})),
      malformed("Rfc9113_8_2_2_KeepAliveIsMalformed", get({{"keep-alive", "timeout=5"}})),
      malformed("Rfc9113_8_2_2_ProxyConnectionIsMalformed", get({{"proxy-connection", "keep-alive"}})),
      malformed("Rfc9113_8_2_2_TransferEncodingIsMalformed",
                request("POST", "/echo", {{"transfer-encoding", "chunked"}}), {"hello"}),
      malformed("Rfc9113_8_2_2_UpgradeIsMalformed", get({{"upgrade", "websocket"}})),
      answered("Rfc9113_8_2_2_TeTrailersIsAccepted", get({{"te", "trailers"}}), 200, {}, body("Hello, World!")),
      malformed("Rfc9113_8_2_2_TeOtherThanTrailersIsMalformed", get({{"te", "gzip"}})),
      // §8.2.3 Compressing the Cookie header field
      answered("Rfc9113_8_2_3_SplitCookiesAreJoined",
               request("GET", "/json/x", {{"cookie", "a=1"}, {"x-b", "b"}, {"cookie", "b=2"}}), 200, {},
               body_has("\"cookie\":\"a=1; b=2\"")),
      // §8.3 Pseudo-fields
      malformed("Rfc9113_8_3_AnUnknownPseudoFieldIsMalformed", get({{":foo", "bar"}})),
      malformed("Rfc9113_8_3_AResponsePseudoFieldInARequestIsMalformed", get({{":status", "200"}})),
      malformed("Rfc9113_8_3_APseudoFieldAfterARegularFieldIsMalformed",
                {{":method", "GET"}, {":scheme", "{scheme}"}, {"x-a", "b"}, {":path", "/plaintext"}, {":authority", "t"}}),
      malformed("Rfc9113_8_3_ADuplicatePathIsMalformed", get({{":path", "/plaintext"}})),
      malformed("Rfc9113_8_3_ADuplicateMethodIsMalformed",
                {{":method", "GET"}, {":method", "GET"}, {":scheme", "{scheme}"}, {":path", "/plaintext"}, {":authority", "t"}}),
      // §8.3.1 Request pseudo-fields
      malformed("Rfc9113_8_3_1_NoMethodIsMalformed", {{":scheme", "{scheme}"}, {":path", "/plaintext"}, {":authority", "t"}}),
      malformed("Rfc9113_8_3_1_NoSchemeIsMalformed", {{":method", "GET"}, {":path", "/plaintext"}, {":authority", "t"}}),
      malformed("Rfc9113_8_3_1_NoPathIsMalformed", {{":method", "GET"}, {":scheme", "{scheme}"}, {":authority", "t"}}),
      malformed("Rfc9113_8_3_1_AnEmptyPathIsMalformed", request("GET", "")),
      malformed("Rfc9113_8_3_1_APathNotStartingWithASlashIsMalformed", request("GET", "plaintext")),
      answered("Rfc9113_8_3_1_AnAuthorityWithUserinfoIs400",
               {{":method", "GET"}, {":scheme", "{scheme}"}, {":path", "/plaintext"}, {":authority", "user@t"}}, 400),
      answered("Rfc9113_8_3_1_OptionsAsteriskIsAccepted", request("OPTIONS", "*"), 200, {}, body("")),
      answered("Rfc9113_8_3_1_HostWithoutAuthorityIsAccepted",
               {{":method", "GET"}, {":scheme", "{scheme}"}, {":path", "/plaintext"}, {"host", "t"}}, 200, {},
               body("Hello, World!")),
      answered("Rfc9113_8_3_1_AHostAgreeingWithTheAuthorityIsAccepted", get({{"host", "t"}}), 200, {},
               body("Hello, World!")),
      answered("Rfc9113_8_3_1_AHostDifferingFromTheAuthorityIs400", get({{"host", "other.example"}}), 400),
      // §8.5 CONNECT (Tiffany is no proxy: a well-formed CONNECT is a method it does not implement)
      answered("Rfc9113_8_5_AWellFormedConnectIs501", {{":method", "CONNECT"}, {":authority", "example.com:443"}}, 501),
      malformed("Rfc9113_8_5_AConnectWithASchemeAndPathIsMalformed",
                {{":method", "CONNECT"}, {":scheme", "{scheme}"}, {":path", "/"}, {":authority", "example.com:443"}}),
      malformed("Rfc9113_8_5_AConnectWithoutAuthorityIsMalformed", {{":method", "CONNECT"}}),
  };
}

class Rfc9113 : public H2ConformanceTest {};

TEST_P(Rfc9113, Holds) { run_h2_row(std::get<0>(GetParam()), std::get<1>(GetParam())); }

INSTANTIATE_TEST_SUITE_P(Rows, Rfc9113, ::testing::Combine(::testing::ValuesIn(rows()),
                                                           ::testing::Values(Transport::h2c, Transport::h2)),
                         h2_row_test_name);

}  // namespace
}  // namespace tiffany::testing
