// ProxyHeaderParser: every field of v1 and v2, every malformed shape, and the same answer however the bytes are cut.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "server/transport/format_peer.hpp"
#include "server/transport/proxy/internal/proxy_header_parser.hpp"

namespace tiffany::proxy_protocol {
namespace {

using Status = ProxyHeaderParser::Status;

const std::string kSignature("\r\n\r\n\0\r\nQUIT\n", 12);

std::string u16(std::size_t value) {
  return std::string{static_cast<char>((value >> 8) & 0xFF), static_cast<char>(value & 0xFF)};
}

std::string tlv(std::uint8_t type, const std::string& value) { return std::string(1, static_cast<char>(type)) + u16(value.size()) + value; }

// A v2 header: signature, version 2 with `command`, `family`, the length of `body`, and `body`.
std::string v2(std::uint8_t command, std::uint8_t family, const std::string& body) {
  return kSignature + static_cast<char>(0x20 | command) + static_cast<char>(family) + u16(body.size()) + body;
}

// 192.0.2.1:56324 -> 198.51.100.7:443, then `tlvs`.
std::string tcp4(const std::string& tlvs = "") {
  return v2(1, 0x11, std::string("\xC0\x00\x02\x01\xC6\x33\x64\x07\xDC\x04\x01\xBB", 12) + tlvs);
}

struct Outcome {
  Status status;
  std::size_t used;  // of the whole input
  std::string error;
  ProxyHeader header;
};

// Feeds `input` whole.
Outcome parse(std::string_view input) {
  ProxyHeaderParser parser;
  const auto result = parser.feed(input);
  return {result.status, result.used, result.status == Status::error ? parser.error() : "", parser.header()};
}

// Feeds `input` in pieces of `piece` bytes; stops at done or error.
Outcome parse_in_pieces(std::string_view input, std::size_t piece) {
  ProxyHeaderParser parser;
  std::size_t used = 0;
  ProxyHeaderParser::Result result{Status::need_more, 0};
  for (std::size_t at = 0; at < input.size() && result.status == Status::need_more; at += piece) {
    result = parser.feed(input.substr(at, piece));
    used += result.used;
  }
  if (input.empty()) result = parser.feed({});
  return {result.status, used, result.status == Status::error ? parser.error() : "", parser.header()};
}

// The parse of `input`, checked to be the same fed whole and fed 1, 2, 3, 7 bytes at a time.
Outcome parse_all_ways(std::string_view input) {
  const Outcome whole = parse(input);
  for (std::size_t piece : {1u, 2u, 3u, 7u}) {
    const Outcome cut = parse_in_pieces(input, piece);
    EXPECT_EQ(cut.status, whole.status) << "piece " << piece;
    EXPECT_EQ(cut.used, whole.used) << "piece " << piece;
    EXPECT_EQ(cut.error, whole.error) << "piece " << piece;
  }
  return whole;
}

std::string error_of(std::string_view input) {
  const Outcome outcome = parse_all_ways(input);
  EXPECT_EQ(outcome.status, Status::error) << "input was accepted";
  return outcome.error;
}

// ---- v1 ----

TEST(ProxyHeaderV1, Tcp4GivesSourceAndDestinationAndStopsAtTheCrlf) {
  const std::string header = "PROXY TCP4 192.0.2.1 198.51.100.7 56324 443\r\n";
  const Outcome outcome = parse_all_ways(header + "GET / HTTP/1.1\r\n");
  ASSERT_EQ(outcome.status, Status::done) << outcome.error;
  EXPECT_EQ(outcome.used, header.size());
  EXPECT_EQ(outcome.header.version, 1);
  EXPECT_FALSE(outcome.header.local);
  EXPECT_EQ(format_peer(outcome.header.source), "192.0.2.1:56324");
  EXPECT_EQ(format_peer(outcome.header.destination), "198.51.100.7:443");
}

TEST(ProxyHeaderV1, Tcp6AndExtremePorts) {
  const Outcome outcome = parse_all_ways("PROXY TCP6 2001:db8::1 ::ffff:192.0.2.9 0 65535\r\n");
  ASSERT_EQ(outcome.status, Status::done) << outcome.error;
  EXPECT_EQ(format_peer(outcome.header.source), "[2001:db8::1]:0");
  EXPECT_EQ(format_peer(outcome.header.destination), "[::ffff:192.0.2.9]:65535");
}

TEST(ProxyHeaderV1, UnknownKeepsTheSocketPeerAndIgnoresTheRestOfTheLine) {
  for (const char* header : {"PROXY UNKNOWN\r\n", "PROXY UNKNOWN ffff::1 ffff::2 1 2\r\n", "PROXY UNKNOWN \t\x01\r\r\n"}) {
    const Outcome outcome = parse_all_ways(header);
    ASSERT_EQ(outcome.status, Status::done) << header << outcome.error;
    EXPECT_TRUE(outcome.header.local);
    EXPECT_EQ(outcome.used, std::string_view(header).size());
  }
}

TEST(ProxyHeaderV1, TheLongestHeaderFitsAndOneByteMoreIsRefused) {
  // 107 bytes: the spec's worst case, padded under UNKNOWN.
  std::string longest = "PROXY UNKNOWN ";
  longest += std::string(107 - longest.size() - 2, 'x') + "\r\n";
  ASSERT_EQ(longest.size(), 107u);
  EXPECT_EQ(parse_all_ways(longest).status, Status::done);
  std::string too_long = "PROXY UNKNOWN ";
  too_long += std::string(108 - too_long.size() - 2, 'x') + "\r\n";
  EXPECT_EQ(error_of(too_long), "v1: no CRLF within 107 bytes (the longest v1 header)");
}

TEST(ProxyHeaderV1, NeedsMoreUntilTheLineEnds) {
  ProxyHeaderParser parser;
  const auto result = parser.feed("PROXY TCP4 192.0.2.1 198.51.100.7 5 6\r");
  EXPECT_EQ(result.status, Status::need_more);
  EXPECT_EQ(result.used, 38u);
  EXPECT_EQ(parser.feed("\n").status, Status::done);
}

TEST(ProxyHeaderV1, MalformedShapesAreRefusedWithWhatWasExpected) {
  EXPECT_EQ(error_of("GET / HTTP/1.1\r\n"),
            "not a PROXY protocol header: expected \"PROXY \" (v1) or the v2 signature, got byte 0x47");
  EXPECT_EQ(error_of("PROXY\tTCP4"), "v1: expected \"PROXY \" at the start, byte 5 differs");
  EXPECT_EQ(error_of("PROXYTCP4 1.2.3.4 1.2.3.4 1 2\r\n"), "v1: expected \"PROXY \" at the start, byte 5 differs");
  EXPECT_EQ(error_of("proxy TCP4\r\n"),
            "not a PROXY protocol header: expected \"PROXY \" (v1) or the v2 signature, got byte 0x70");
  EXPECT_EQ(error_of("PROXY TCP4 192.0.2.1 198.51.100.7 1 2\n"), "v1: the line ends in a bare LF, not CRLF");
  EXPECT_EQ(error_of("PROXY TCP5 192.0.2.1 198.51.100.7 1 2\r\n"),
            "v1: expected \"TCP4 \", \"TCP6 \" or \"UNKNOWN\" after \"PROXY \"");
  EXPECT_EQ(error_of("PROXY TCP4\r\n"), "v1: expected \"TCP4 \", \"TCP6 \" or \"UNKNOWN\" after \"PROXY \"");
  EXPECT_EQ(error_of("PROXY UNKNOWNX\r\n"), "v1: expected \"TCP4 \", \"TCP6 \" or \"UNKNOWN\" after \"PROXY \"");
  EXPECT_EQ(error_of("PROXY TCP4 192.0.2.1\tx 198.51.100.7 1 2\r\n"),
            "v1: byte 0x09 in the line (only printable ASCII and single spaces)");
  EXPECT_EQ(error_of("PROXY TCP4 192.0.2.1 198.51.100.7 1 2\r\r\n"),
            "v1: byte 0x0d in the line (only printable ASCII and single spaces)");
  const std::string fields =
      "v1: TCP4 wants exactly four fields after it, each after a single space: source, destination, source port, "
      "destination port";
  EXPECT_EQ(error_of("PROXY TCP4 192.0.2.1 198.51.100.7 1\r\n"), fields);
  EXPECT_EQ(error_of("PROXY TCP4 192.0.2.1 198.51.100.7 1 2 3\r\n"), fields);
  EXPECT_EQ(error_of("PROXY TCP4 192.0.2.1 198.51.100.7 1 2 \r\n"), fields);
  EXPECT_EQ(error_of("PROXY TCP4 192.0.2.1  198.51.100.7 1 2\r\n"), fields);
  EXPECT_EQ(error_of("PROXY TCP4  192.0.2.1 198.51.100.7 1 2\r\n"), fields);
}

TEST(ProxyHeaderV1, PortsAreDecimalUpTo65535WithoutLeadingZeros) {
  const std::string source = "v1: the source port is not a number from 0 to 65535 without leading zeros";
  const std::string destination = "v1: the destination port is not a number from 0 to 65535 without leading zeros";
  EXPECT_EQ(error_of("PROXY TCP4 192.0.2.1 198.51.100.7 65536 2\r\n"), source);
  EXPECT_EQ(error_of("PROXY TCP4 192.0.2.1 198.51.100.7 080 2\r\n"), source);
  EXPECT_EQ(error_of("PROXY TCP4 192.0.2.1 198.51.100.7 -1 2\r\n"), source);
  EXPECT_EQ(error_of("PROXY TCP4 192.0.2.1 198.51.100.7 +1 2\r\n"), source);
  EXPECT_EQ(error_of("PROXY TCP4 192.0.2.1 198.51.100.7 1 999999\r\n"), destination);
  EXPECT_EQ(error_of("PROXY TCP4 192.0.2.1 198.51.100.7 1 0x1\r\n"), destination);
}

TEST(ProxyHeaderV1, AddressesMustBeOfTheNamedFamily) {
  EXPECT_EQ(error_of("PROXY TCP4 2001:db8::1 198.51.100.7 1 2\r\n"), "v1: the source is not an IPv4 address (TCP4)");
  EXPECT_EQ(error_of("PROXY TCP4 192.0.2.1 198.51.100.256 1 2\r\n"), "v1: the destination is not an IPv4 address (TCP4)");
  EXPECT_EQ(error_of("PROXY TCP4 192.0.2.01 198.51.100.7 1 2\r\n"), "v1: the source is not an IPv4 address (TCP4)");
  EXPECT_EQ(error_of("PROXY TCP4 localhost 198.51.100.7 1 2\r\n"), "v1: the source is not an IPv4 address (TCP4)");
  EXPECT_EQ(error_of("PROXY TCP6 192.0.2.1 ::1 1 2\r\n"), "v1: the source is not an IPv6 address (TCP6)");
  EXPECT_EQ(error_of("PROXY TCP6 ::1 ::g 1 2\r\n"), "v1: the destination is not an IPv6 address (TCP6)");
}

// ---- v2 ----

TEST(ProxyHeaderV2, ProxyOverIpv4GivesAddressesAndPortsAndStopsAtItsLength) {
  const std::string header = tcp4();
  const Outcome outcome = parse_all_ways(header + "\x16\x03\x01");
  ASSERT_EQ(outcome.status, Status::done) << outcome.error;
  EXPECT_EQ(outcome.used, header.size());
  EXPECT_EQ(outcome.header.version, 2);
  EXPECT_FALSE(outcome.header.local);
  EXPECT_EQ(format_peer(outcome.header.source), "192.0.2.1:56324");
  EXPECT_EQ(format_peer(outcome.header.destination), "198.51.100.7:443");
  EXPECT_TRUE(outcome.header.alpn.empty());
  EXPECT_FALSE(outcome.header.ssl);
}

TEST(ProxyHeaderV2, ProxyOverIpv6) {
  std::string body = std::string("\x20\x01\x0d\xb8", 4) + std::string(11, '\0') + '\x01';  // 2001:db8::1
  body += std::string(15, '\0') + '\x02' + u16(1234) + u16(80);                        // ::2
  const Outcome outcome = parse_all_ways(v2(1, 0x21, body));
  ASSERT_EQ(outcome.status, Status::done) << outcome.error;
  EXPECT_EQ(format_peer(outcome.header.source), "[2001:db8::1]:1234");
  EXPECT_EQ(format_peer(outcome.header.destination), "[::2]:80");
}

TEST(ProxyHeaderV2, LocalKeepsTheSocketPeerAndSkipsItsWholeBlock) {
  for (const std::string& header : {v2(0, 0x00, ""), v2(0, 0x11, std::string(12, 'x') + tlv(0x01, "h2")),
                                    v2(0, 0x31, std::string(300, 'z'))}) {
    const Outcome outcome = parse_all_ways(header + "after");
    ASSERT_EQ(outcome.status, Status::done) << outcome.error;
    EXPECT_TRUE(outcome.header.local);
    EXPECT_EQ(outcome.used, header.size());
  }
}

TEST(ProxyHeaderV2, UnspecifiedFamilyUnderProxyKeepsTheSocketPeer) {
  const Outcome outcome = parse_all_ways(v2(1, 0x00, "ignored"));
  ASSERT_EQ(outcome.status, Status::done) << outcome.error;
  EXPECT_TRUE(outcome.header.local);
}

TEST(ProxyHeaderV2, AlpnAuthorityAndSslWithItsVersionAndCnAreRead) {
  const std::string ssl = std::string("\x07\x00\x00\x00\x00", 5) + tlv(0x21, "TLSv1.3") + tlv(0x23, "TLS_AES_128_GCM_SHA256") +
                          tlv(0x22, "Jane Doe");
  const Outcome outcome = parse_all_ways(tcp4(tlv(0x04, "noop") + tlv(0x01, "h2") + tlv(0x02, "www.example.com") +
                                              tlv(0x03, "\x01\x02\x03\x04") + tlv(0x20, ssl) + tlv(0x05, "id-1") +
                                              tlv(0xE0, "custom") + tlv(0x30, "")));
  ASSERT_EQ(outcome.status, Status::done) << outcome.error;
  EXPECT_EQ(outcome.header.alpn.view(), "h2");
  EXPECT_EQ(outcome.header.authority.view(), "www.example.com");
  EXPECT_TRUE(outcome.header.ssl);
  EXPECT_EQ(outcome.header.ssl_client, 0x07);
  EXPECT_EQ(outcome.header.ssl_verify, 0u);
  EXPECT_EQ(outcome.header.ssl_version.view(), "TLSv1.3");
  EXPECT_EQ(outcome.header.ssl_cn.view(), "Jane Doe");
}

TEST(ProxyHeaderV2, SslVerifyIsBigEndianAndSubTlvsAreOptional) {
  const Outcome outcome = parse_all_ways(tcp4(tlv(0x20, std::string("\x01\x00\x00\x01\x02", 5))));
  ASSERT_EQ(outcome.status, Status::done) << outcome.error;
  EXPECT_EQ(outcome.header.ssl_client, 0x01);
  EXPECT_EQ(outcome.header.ssl_verify, 0x0102u);
  EXPECT_TRUE(outcome.header.ssl_version.empty());
}

TEST(ProxyHeaderV2, TheFixedPartIsChecked) {
  std::string wrong_signature = tcp4();
  wrong_signature[7] = 'q';
  EXPECT_EQ(error_of(wrong_signature), "v2: byte 7 of the signature is 0x71, expected 0x51");
  std::string version1 = tcp4();
  version1[12] = '\x11';
  EXPECT_EQ(error_of(version1), "v2: version 1, expected 2");
  std::string command2 = tcp4();
  command2[12] = '\x22';
  EXPECT_EQ(error_of(command2), "v2: command 2, expected 0 (LOCAL) or 1 (PROXY)");
  EXPECT_EQ(error_of(v2(1, 0x12, std::string(12, '\0'))),
            "v2: family byte 0x12 is UDP (DGRAM); only TCP (STREAM) is served");
  EXPECT_EQ(error_of(v2(1, 0x22, std::string(36, '\0'))),
            "v2: family byte 0x22 is UDP (DGRAM); only TCP (STREAM) is served");
  EXPECT_EQ(error_of(v2(1, 0x31, std::string(216, '\0'))),
            "v2: family byte 0x31 is AF_UNIX; only AF_INET and AF_INET6 are served");
  EXPECT_EQ(error_of(v2(1, 0x13, std::string(12, '\0'))),
            "v2: family byte 0x13 is not one of 0x00, 0x11 (TCP over IPv4) or 0x21 (TCP over IPv6)");
  EXPECT_EQ(error_of(v2(0, 0x41, "")), "v2: family byte 0x41 is not one the protocol defines");
  EXPECT_EQ(error_of(v2(1, 0x11, std::string(11, '\0'))),
            "v2: length 11 is shorter than the 12-byte address block of family 0x11");
  EXPECT_EQ(error_of(v2(1, 0x21, std::string(12, '\0'))),
            "v2: length 12 is shorter than the 36-byte address block of family 0x21");
}

TEST(ProxyHeaderV2, TlvsMustFitTheHeader) {
  EXPECT_EQ(error_of(tcp4(std::string("\x01\x00", 2))), "v2: 2 byte(s) left at offset 28, too few for a TLV (type and 2-byte length)");
  EXPECT_EQ(error_of(tcp4(std::string("\x04\x00\x05xy", 5))),
            "v2: TLV 0x04 at offset 28 says 5 bytes, only 2 remain in the header");
  EXPECT_EQ(error_of(tcp4(tlv(0x04, "") + std::string("\x01\x00\x03h", 4))),
            "v2: TLV 0x01 at offset 31 says 3 bytes, only 1 remain in the header");
}

TEST(ProxyHeaderV2, KeptTlvsAreBoundedPrintableAndSingle) {
  EXPECT_EQ(error_of(tcp4(tlv(0x01, ""))), "v2: PP2_TYPE_ALPN at offset 28 is 0 bytes, expected 1 to 255");
  EXPECT_EQ(error_of(tcp4(tlv(0x02, std::string(256, 'a')))),
            "v2: PP2_TYPE_AUTHORITY at offset 28 is 256 bytes, expected 1 to 255");
  EXPECT_EQ(error_of(tcp4(tlv(0x20, std::string(1025, '\0')))),
            "v2: PP2_TYPE_SSL at offset 28 is 1025 bytes, expected 1 to 1024");
  EXPECT_EQ(error_of(tcp4(tlv(0x01, "h 2"))),
            "v2: PP2_TYPE_ALPN at offset 28 holds byte 0x20 (printable ASCII without spaces expected)");
  EXPECT_EQ(error_of(tcp4(tlv(0x02, "a\nb"))),
            "v2: PP2_TYPE_AUTHORITY at offset 28 holds byte 0x0a (printable ASCII without spaces expected)");
  EXPECT_EQ(error_of(tcp4(tlv(0x01, "h2") + tlv(0x01, "h2"))), "v2: a second PP2_TYPE_ALPN at offset 33");
  EXPECT_EQ(error_of(tcp4(tlv(0x05, std::string(129, 'u')))),
            "v2: PP2_TYPE_UNIQUE_ID at offset 28 is 129 bytes, at most 128 allowed");
  EXPECT_EQ(parse_all_ways(tcp4(tlv(0x05, std::string(128, 'u')))).status, Status::done);
}

TEST(ProxyHeaderV2, SslTlvIsCheckedFieldByField) {
  EXPECT_EQ(error_of(tcp4(tlv(0x20, std::string("\x01\x00\x00\x00", 4)))),
            "v2: PP2_TYPE_SSL at offset 28 is 4 bytes, at least 5 expected (client, verify)");
  EXPECT_EQ(error_of(tcp4(tlv(0x20, std::string("\x09\x00\x00\x00\x00", 5)))),
            "v2: PP2_TYPE_SSL at offset 28 has client bits 0x09, only 0x01, 0x02 and 0x04 are defined");
  const std::string head("\x01\x00\x00\x00\x00", 5);
  EXPECT_EQ(error_of(tcp4(tlv(0x20, head + std::string("\x21\x00", 2)))),
            "v2: PP2_TYPE_SSL at offset 28: 2 byte(s) left at its byte 5, too few for a sub-TLV");
  EXPECT_EQ(error_of(tcp4(tlv(0x20, head + std::string("\x22\x00\x09short", 8)))),
            "v2: PP2_TYPE_SSL at offset 28: sub-TLV 0x22 at its byte 5 says 9 bytes, only 5 remain");
  EXPECT_EQ(error_of(tcp4(tlv(0x20, head + tlv(0x21, "")))),
            "v2: PP2_TYPE_SSL at offset 28: PP2_SUBTYPE_SSL_VERSION is 0 bytes, expected 1 to 64");
  EXPECT_EQ(error_of(tcp4(tlv(0x20, head + tlv(0x22, std::string(256, 'c'))))),
            "v2: PP2_TYPE_SSL at offset 28: PP2_SUBTYPE_SSL_CN is 256 bytes, expected 1 to 255");
  EXPECT_EQ(error_of(tcp4(tlv(0x20, head + tlv(0x22, "a\x01")))),
            "v2: PP2_TYPE_SSL at offset 28: PP2_SUBTYPE_SSL_CN holds control byte 0x01");
  EXPECT_EQ(error_of(tcp4(tlv(0x20, head + tlv(0x21, "TLSv1.2") + tlv(0x21, "TLSv1.3")))),
            "v2: PP2_TYPE_SSL at offset 28: a second PP2_SUBTYPE_SSL_VERSION");
  EXPECT_EQ(error_of(tcp4(tlv(0x20, head) + tlv(0x20, head))), "v2: a second PP2_TYPE_SSL at offset 36");
}

TEST(ProxyHeaderV2, ALargeSkippedTlvIsPassedOverWithoutBuffering) {
  const std::string header = tcp4(tlv(0xEE, std::string(60'000, 'x')) + tlv(0x01, "http/1.1"));
  const Outcome outcome = parse_all_ways(header);
  ASSERT_EQ(outcome.status, Status::done) << outcome.error;
  EXPECT_EQ(outcome.used, header.size());
  EXPECT_EQ(outcome.header.alpn.view(), "http/1.1");
}

TEST(ProxyHeaderParserState, AfterDoneOrErrorItTakesNothingMore) {
  ProxyHeaderParser parser;
  EXPECT_EQ(parser.feed("PROXY UNKNOWN\r\n").status, Status::done);
  const auto again = parser.feed("more");
  EXPECT_EQ(again.status, Status::done);
  EXPECT_EQ(again.used, 0u);
  ProxyHeaderParser bad;
  EXPECT_EQ(bad.feed("X").status, Status::error);
  EXPECT_EQ(bad.feed("PROXY UNKNOWN\r\n").status, Status::error);
}

TEST(ProxyHeaderParserState, EveryPrefixOfAValidHeaderNeedsMore) {
  const std::string headers[] = {"PROXY TCP6 2001:db8::1 2001:db8::2 1 2\r\n",
                                 tcp4(tlv(0x01, "h2") + tlv(0x20, std::string("\x01\0\0\0\0", 5) + tlv(0x22, "cn")))};
  for (const std::string& header : headers) {
    for (std::size_t size = 0; size < header.size(); ++size) {
      ProxyHeaderParser parser;
      const auto result = parser.feed(std::string_view(header).substr(0, size));
      EXPECT_EQ(result.status, Status::need_more) << size << ": " << parser.error();
    }
  }
}

}  // namespace
}  // namespace tiffany::proxy_protocol
