// MessageReader and Utf8Stream: every RFC 6455 rule a server's reader enforces, each broken once,
// with the close code the RFC asks for; and the server's frame writer.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <tiffany/http/utf8.hpp>

#include "http/engine/websocket/frame.hpp"
#include "http/engine/websocket/message_reader.hpp"
#include "http/internal/websocket/utf8_stream.hpp"

namespace tiffany::http::websocket {
namespace {

using Kind = Event::Kind;

// A client's frame: masked unless told otherwise, with the length in the form asked for
// (0: the shortest; 2 or 8: that many length bytes even if shorter would do).
std::string client_frame(std::uint8_t first_byte, std::string_view payload, bool masked = true, int length_form = 0) {
  std::string frame(1, static_cast<char>(first_byte));
  const std::uint64_t length = payload.size();
  const char mask_bit = masked ? static_cast<char>(0x80) : 0;
  if (length_form == 0 && length <= 125) {
    frame += static_cast<char>(mask_bit | static_cast<char>(length));
  } else if (length_form == 2 || (length_form == 0 && length <= 0xffff)) {
    frame += static_cast<char>(mask_bit | 126);
    frame += static_cast<char>(length >> 8);
    frame += static_cast<char>(length & 0xff);
  } else {
    frame += static_cast<char>(mask_bit | 127);
    for (int shift = 56; shift >= 0; shift -= 8) frame += static_cast<char>((length >> shift) & 0xff);
  }
  const unsigned char mask[4] = {0x37, 0xfa, 0x21, 0x3d};
  if (masked) frame.append(reinterpret_cast<const char*>(mask), 4);
  for (std::size_t i = 0; i < payload.size(); ++i) {
    frame += masked ? static_cast<char>(payload[i] ^ mask[i % 4]) : payload[i];
  }
  return frame;
}

constexpr std::uint8_t kFin = 0x80;
constexpr std::uint8_t kText = 0x1;
constexpr std::uint8_t kBinary = 0x2;
constexpr std::uint8_t kClose = 0x8;
constexpr std::uint8_t kPing = 0x9;

// Every event the reader gives for `bytes` fed at once.
std::vector<Event> read_all(std::string_view bytes, ReaderLimits limits = {}) {
  MessageReader reader(limits);
  std::vector<Event> events;
  for (Event event = reader.next(bytes); event.kind != Kind::need_more; event = reader.next(bytes)) {
    events.push_back(event);
  }
  return events;
}

// The same, fed one byte at a time.
std::vector<Event> read_bytewise(std::string_view bytes, ReaderLimits limits = {}) {
  MessageReader reader(limits);
  std::vector<Event> events;
  for (char byte : bytes) {
    std::string_view one(&byte, 1);
    for (Event event = reader.next(one); event.kind != Kind::need_more; event = reader.next(one)) {
      events.push_back(event);
    }
  }
  return events;
}

// The close code of the one error `bytes` cause, or 0.
std::uint16_t error_code(std::string_view bytes, ReaderLimits limits = {}) {
  const std::vector<Event> events = read_all(bytes, limits);
  return !events.empty() && events.back().kind == Kind::error ? events.back().code : 0;
}

TEST(WebSocketReader, AMaskedTextMessageIsReadWholeHoweverTheBytesArrive) {
  const std::string bytes = client_frame(kFin | kText, "Hello") + client_frame(kFin | kBinary, std::string(300, 'x'));
  for (const auto& events : {read_all(bytes), read_bytewise(bytes)}) {
    ASSERT_EQ(events.size(), 2u);
    EXPECT_EQ(events[0].kind, Kind::message);
    EXPECT_TRUE(events[0].text);
    EXPECT_EQ(events[0].payload, "Hello");
    EXPECT_FALSE(events[1].text);
    EXPECT_EQ(events[1].payload, std::string(300, 'x'));
  }
}

TEST(WebSocketReader, LengthsInEachFormAreRead) {
  const std::string big(70'000, 'b');
  const std::vector<Event> events = read_all(client_frame(kFin | kBinary, std::string(126, 'a')) +
                                             client_frame(kFin | kBinary, big));
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].payload.size(), 126u);
  EXPECT_EQ(events[1].payload, big);
}

TEST(WebSocketReader, FragmentsJoinAndAControlFrameBetweenThemComesFirst) {
  const std::string bytes = client_frame(kText, "Hel") + client_frame(kFin | kPing, "are you there") +
                            client_frame(0x0, "lo, ") + client_frame(kFin | 0x0, "world");
  for (const auto& events : {read_all(bytes), read_bytewise(bytes)}) {
    ASSERT_EQ(events.size(), 2u);
    EXPECT_EQ(events[0].kind, Kind::ping);
    EXPECT_EQ(events[0].payload, "are you there");
    EXPECT_EQ(events[1].kind, Kind::message);
    EXPECT_EQ(events[1].payload, "Hello, world");
  }
}

TEST(WebSocketReader, FramingRulesBrokenAre1002) {
  EXPECT_EQ(error_code(client_frame(kFin | kText, "x", false)), close_code::protocol_error) << "unmasked";
  EXPECT_EQ(error_code(client_frame(kFin | 0x40 | kText, "x")), close_code::protocol_error) << "RSV1";
  EXPECT_EQ(error_code(client_frame(kFin | 0x10 | kText, "x")), close_code::protocol_error) << "RSV3";
  EXPECT_EQ(error_code(client_frame(kFin | 0x3, "x")), close_code::protocol_error) << "opcode 3";
  EXPECT_EQ(error_code(client_frame(kFin | 0xb, "x")), close_code::protocol_error) << "opcode 11";
  EXPECT_EQ(error_code(client_frame(kFin | kPing, std::string(126, 'p'))), close_code::protocol_error) << "long ping";
  EXPECT_EQ(error_code(client_frame(kPing, "p")), close_code::protocol_error) << "fragmented ping";
  EXPECT_EQ(error_code(client_frame(kFin | 0x0, "x")), close_code::protocol_error) << "continuation first";
  EXPECT_EQ(error_code(client_frame(kText, "a") + client_frame(kFin | kText, "b")), close_code::protocol_error)
      << "a new message inside a fragmented one";
  EXPECT_EQ(error_code(client_frame(kFin | kBinary, "short", true, 2)), close_code::protocol_error)
      << "a 16-bit length for 5 bytes";
  EXPECT_EQ(error_code(client_frame(kFin | kBinary, std::string(200, 'x'), true, 8)), close_code::protocol_error)
      << "a 64-bit length for 200 bytes";
  std::string huge = client_frame(kFin | kBinary, "", true, 8);
  huge[2] = static_cast<char>(0x80);  // the 64-bit length's most significant bit
  EXPECT_EQ(error_code(huge), close_code::protocol_error) << "a length with its top bit set";
}

TEST(WebSocketReader, AnUnmaskedFrameIsFineWhereMaskingIsNotRequired) {
  ReaderLimits limits;
  limits.require_mask = false;
  std::string server_frame;
  append_frame(server_frame, Opcode::text, "from the server");
  const std::vector<Event> events = read_all(server_frame, limits);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].payload, "from the server");
}

TEST(WebSocketReader, TextThatIsNotUtf8Is1007AsSoonAsItShows) {
  EXPECT_EQ(error_code(client_frame(kFin | kText, "ok \xff")), close_code::invalid_payload);
  EXPECT_EQ(error_code(client_frame(kFin | kText, "\xed\xa0\x80")), close_code::invalid_payload) << "a surrogate";
  EXPECT_EQ(error_code(client_frame(kFin | kText, "caf\xc3")), close_code::invalid_payload) << "cut off at the end";
  // Fail fast: the bad byte in the first fragment is reported before the message's end arrives.
  const std::vector<Event> first_only = read_all(client_frame(kText, "\xc0\xaf and more"));
  ASSERT_EQ(first_only.size(), 1u);
  EXPECT_EQ(first_only[0].code, close_code::invalid_payload);
  // Binary messages may hold anything.
  EXPECT_EQ(error_code(client_frame(kFin | kBinary, "\xff\xfe")), 0);
}

TEST(WebSocketReader, ACharacterSplitAcrossFragmentsIsValid) {
  const std::vector<Event> events =
      read_all(client_frame(kText, "caf\xc3") + client_frame(kFin | 0x0, "\xa9 \xf0\x9f") + client_frame(kFin | 0x0, ""));
  // The second fragment is final: "\xf0\x9f" is cut off there.
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].code, close_code::invalid_payload);
  const std::vector<Event> whole = read_all(client_frame(kText, "caf\xc3") + client_frame(0x0, "\xa9 \xf0\x9f") +
                                            client_frame(kFin | 0x0, "\x98\x80"));
  ASSERT_EQ(whole.size(), 1u);
  EXPECT_EQ(whole[0].kind, Kind::message);
  EXPECT_EQ(whole[0].payload, "caf\xc3\xa9 \xf0\x9f\x98\x80");
}

TEST(WebSocketReader, AMessageOverTheLimitIs1009BeforeItsPayloadArrives) {
  ReaderLimits limits;
  limits.max_message_bytes = 100;
  EXPECT_EQ(error_code(client_frame(kFin | kBinary, std::string(100, 'x')), limits), 0);
  const std::string frame = client_frame(kFin | kBinary, std::string(101, 'x'));
  EXPECT_EQ(error_code(frame.substr(0, 8), limits), close_code::message_too_big) << "the header alone";
  EXPECT_EQ(error_code(client_frame(kBinary, std::string(60, 'x')) + client_frame(kFin | 0x0, std::string(41, 'y')), limits),
            close_code::message_too_big)
      << "fragments adding up past it";
}

// The limit is on the message the handler receives: a compressed one is held to it once inflated, and its
// frames may be longer than the limit by deflate's overhead on data that does not compress.
TEST(WebSocketReader, ACompressedMessageMayExceedTheLimitByDeflatesOverheadOnly) {
  ReaderLimits limits;
  limits.max_message_bytes = 100'000;
  limits.allow_compressed = true;
  const std::size_t allowed = compressed_message_limit(limits.max_message_bytes);
  EXPECT_GE(allowed, 100'000u + 100'000u / 8) << "a fixed-Huffman coder's 9 bits a byte fit";
  EXPECT_LE(allowed, 100'000u + 100'000u / 4) << "not a second limit in disguise";
  // 0x40: RSV1, the first frame of a compressed message.
  EXPECT_EQ(error_code(client_frame(kFin | 0x40 | kBinary, std::string(100'500, 'x')), limits), 0);
  EXPECT_EQ(error_code(client_frame(0x40 | kBinary, std::string(60'000, 'x')) +
                           client_frame(kFin | 0x0, std::string(allowed - 60'000, 'y')),
                       limits),
            0)
      << "fragments adding up to the allowance";
  EXPECT_EQ(error_code(client_frame(kFin | 0x40 | kBinary, std::string(allowed + 1, 'x')).substr(0, 14), limits),
            close_code::message_too_big);
  // An uncompressed message is held to the limit itself.
  EXPECT_EQ(error_code(client_frame(kFin | kBinary, std::string(100'001, 'x')).substr(0, 14), limits),
            close_code::message_too_big);
}

TEST(WebSocketReader, CloseFramesGiveTheirCodeAndReasonOrTheRuleTheyBreak) {
  const std::vector<Event> empty = read_all(client_frame(kFin | kClose, ""));
  ASSERT_EQ(empty.size(), 1u);
  EXPECT_EQ(empty[0].kind, Kind::close);
  EXPECT_EQ(empty[0].code, close_code::no_status);

  const std::vector<Event> normal = read_all(client_frame(kFin | kClose, std::string("\x03\xe8", 2) + "bye"));
  ASSERT_EQ(normal.size(), 1u);
  EXPECT_EQ(normal[0].code, 1000);
  EXPECT_EQ(normal[0].payload, "bye");
  EXPECT_EQ(read_all(client_frame(kFin | kClose, std::string("\x0b\xb8", 2)))[0].code, 3000) << "an application's code";

  EXPECT_EQ(error_code(client_frame(kFin | kClose, "\x03")), close_code::protocol_error) << "one byte";
  EXPECT_EQ(error_code(client_frame(kFin | kClose, std::string("\x03\xed", 2))), close_code::protocol_error) << "1005";
  EXPECT_EQ(error_code(client_frame(kFin | kClose, std::string("\x03\xe7", 2))), close_code::protocol_error) << "999";
  EXPECT_EQ(error_code(client_frame(kFin | kClose, std::string("\x13\x88", 2))), close_code::protocol_error) << "5000";
  EXPECT_EQ(error_code(client_frame(kFin | kClose, std::string("\x03\xe8\xff", 3))), close_code::invalid_payload)
      << "a reason that is not UTF-8";
}

TEST(WebSocketReader, IanasRestartAndTryAgainLaterCodesAreAccepted) {
  for (const std::uint16_t code : {1012, 1013, 1014}) {
    const std::string payload{static_cast<char>(code >> 8), static_cast<char>(code & 0xff)};
    const std::vector<Event> events = read_all(client_frame(kFin | kClose, payload));
    ASSERT_EQ(events.size(), 1u);
    EXPECT_EQ(events[0].kind, Kind::close) << code;
    EXPECT_EQ(events[0].code, code);
  }
  EXPECT_EQ(error_code(client_frame(kFin | kClose, std::string("\x03\xf7", 2))), close_code::protocol_error) << "1015";
}

TEST(WebSocketReader, WithDeflateAgreedRsv1MarksAMessagesFirstFrameOnly) {
  ReaderLimits deflate;
  deflate.allow_compressed = true;
  // Compressed bytes are not UTF-8 and need not be: they are checked once inflated.
  const std::vector<Event> events =
      read_all(client_frame(0x40 | kText, "\xff\xfe") + client_frame(kFin | 0x0, "\xc3"), deflate);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].kind, Kind::message);
  EXPECT_TRUE(events[0].compressed);
  EXPECT_TRUE(events[0].text);
  EXPECT_EQ(events[0].payload, "\xff\xfe\xc3");
  const std::vector<Event> plain = read_all(client_frame(kFin | kText, "ok"), deflate);
  ASSERT_EQ(plain.size(), 1u);
  EXPECT_FALSE(plain[0].compressed);
  EXPECT_EQ(error_code(client_frame(kFin | kText, "ok \xff"), deflate), close_code::invalid_payload)
      << "an uncompressed text message is still checked as it arrives";
  EXPECT_EQ(error_code(client_frame(kText, "a") + client_frame(kFin | 0x40 | 0x0, "b"), deflate),
            close_code::protocol_error)
      << "RSV1 on a continuation frame";
  EXPECT_EQ(error_code(client_frame(kFin | 0x40 | kPing, "p"), deflate), close_code::protocol_error)
      << "RSV1 on a control frame";
  EXPECT_EQ(error_code(client_frame(kFin | 0x20 | kText, "x"), deflate), close_code::protocol_error) << "RSV2";
}

TEST(WebSocketReader, NothingIsReadAfterACloseOrAnError) {
  MessageReader reader;
  const std::string bytes = client_frame(kFin | kClose, "") + client_frame(kFin | kText, "late");
  std::string_view input = bytes;
  EXPECT_EQ(reader.next(input).kind, Kind::close);
  EXPECT_TRUE(reader.done());
  EXPECT_EQ(reader.next(input).kind, Kind::need_more);
  EXPECT_EQ(input.size(), client_frame(kFin | kText, "late").size()) << "the rest stays unread";
}

TEST(WebSocketUtf8Stream, ChecksRangesPieceByPiece) {
  const auto valid = [](std::vector<std::string_view> pieces) {
    Utf8Stream stream;
    for (std::string_view piece : pieces) stream.feed(piece);
    return stream.complete();
  };
  EXPECT_TRUE(valid({"plain ascii"}));
  EXPECT_TRUE(valid({"\xf0", "\x9f\x98", "\x80"}));
  EXPECT_TRUE(valid({"\xef\xbf\xbf"}));   // U+FFFF
  EXPECT_FALSE(valid({"\xc0\x80"}));       // overlong
  EXPECT_FALSE(valid({"\xe0\x80\x80"}));   // overlong
  EXPECT_FALSE(valid({"\xf4\x90\x80\x80"}));  // above U+10FFFF
  EXPECT_FALSE(valid({"\xf5"}));
  EXPECT_FALSE(valid({"\x80"}));           // a continuation byte first
  EXPECT_FALSE(valid({"\xe2\x82"}));       // cut off
  Utf8Stream stream;
  EXPECT_FALSE(stream.feed("\xed\xbf"));   // a surrogate's first two bytes are enough to fail
}

TEST(WebSocketWriter, LengthsTakeTheirShortestFormAndCloseReasonsFit) {
  const auto header_size = [](std::size_t payload) {
    std::string out;
    append_frame(out, Opcode::binary, std::string(payload, 'x'));
    return out.size() - payload;
  };
  EXPECT_EQ(header_size(125), 2u);
  EXPECT_EQ(header_size(126), 4u);
  EXPECT_EQ(header_size(65'535), 4u);
  EXPECT_EQ(header_size(65'536), 10u);

  std::string close;
  std::string reason;
  for (int i = 0; i < 70; ++i) reason += "\xc3\xa9";  // 140 bytes of two-byte characters
  append_close(close, close_code::going_away, reason);
  ASSERT_LE(close.size(), 2 + kMaxControlPayload);
  EXPECT_EQ(static_cast<unsigned char>(close[0]), 0x88);
  EXPECT_EQ(close.substr(2, 2), std::string("\x03\xe9", 2));
  EXPECT_TRUE(is_valid_utf8(close.substr(4))) << "cut between characters";
}

}  // namespace
}  // namespace tiffany::http::websocket
