// libFuzzer target: WebSocket's MessageReader, fed whole and in pieces, against a reference decoder and the frame writer;
// and the permessage-deflate path (any bytes inflated under a limit, every message compressed and inflated back).
//   build-fuzz/tests/fuzz/websocket_frame_fuzzer CORPUS tests/fuzz/websocket_seeds tests/fuzz/websocket_regressions
// An input is: one byte choosing the reader (even: a server's, masks required,
// the default size limit; odd: masks optional, a limit of byte >> 1 bytes),
// then 1 to 4 bytes saying where to cut (the first of them says how many),
// then the byte stream.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "http/engine/websocket/frame.hpp"
#include "http/engine/websocket/message_deflate.hpp"
#include "http/engine/websocket/message_reader.hpp"
#include "tests/fuzz/websocket_reference.hpp"

namespace {

using tiffany::http::websocket::append_close;
using tiffany::http::websocket::append_frame;
using tiffany::http::websocket::Event;
using tiffany::http::websocket::is_sendable_close_code;
using tiffany::http::websocket::kMaxControlPayload;
using tiffany::http::websocket::MessageReader;
using tiffany::http::websocket::Opcode;
using tiffany::http::websocket::ReaderLimits;
using websocket_reference::classify_utf8;
using websocket_reference::Utf8;
using Kind = Event::Kind;

const char* kind_name(Kind kind) {
  switch (kind) {
    case Kind::need_more: return "need_more";
    case Kind::message: return "message";
    case Kind::ping: return "ping";
    case Kind::pong: return "pong";
    case Kind::close: return "close";
    case Kind::error: return "error";
  }
  return "?";
}

void print_events(const char* label, const std::vector<Event>& events) {
  std::fprintf(stderr, "  %s:\n", label);
  for (const Event& e : events) {
    std::fprintf(stderr, "    %s text=%d code=%u payload=%zu bytes why=\"%s\"\n", kind_name(e.kind), e.text ? 1 : 0,
                 static_cast<unsigned>(e.code), e.payload.size(), e.why.c_str());
  }
}

[[noreturn]] void violated(const char* what) {
  std::fprintf(stderr, "websocket_frame_fuzzer: %s\n", what);
  std::abort();
}

[[noreturn]] void differ(const char* what, const std::vector<Event>& a, const char* a_label, const std::vector<Event>& b,
                         const char* b_label) {
  std::fprintf(stderr, "websocket_frame_fuzzer: %s\n", what);
  print_events(a_label, a);
  print_events(b_label, b);
  std::abort();
}

// The size of the next piece, cycling through `cuts`: 1 to 16 bytes, or (a
// byte of 0xc0 and up) up to 4 KiB, so that a payload can arrive in one piece.
std::size_t piece_size(std::string_view cuts, std::size_t& turn) {
  const auto cut = static_cast<unsigned char>(cuts[turn++ % cuts.size()]);
  return cut < 0xc0 ? 1 + cut % 16 : 1 + static_cast<std::size_t>(cut & 0x3f) * 64;
}

// Every event `reader` gives for `input` in pieces (whole when `cuts` is
// empty), checking what holds whatever the input: need_more means every byte
// was used; the stream is over (done) exactly after an error or a close;
// then nothing more is read or reported.
std::vector<Event> feed(MessageReader& reader, std::string_view input, std::string_view cuts) {
  std::vector<Event> events;
  std::size_t at = 0;
  std::size_t turn = 0;
  bool over = false;
  do {
    const std::size_t piece = cuts.empty() ? input.size() : std::min(piece_size(cuts, turn), input.size() - at);
    std::string_view rest = input.substr(at, piece);
    at += piece;
    for (;;) {
      const std::size_t before = rest.size();
      Event event = reader.next(rest);
      if (over) {
        if (event.kind != Kind::need_more) violated("an event after an error or a close");
        if (rest.size() != before) violated("bytes read after an error or a close");
        if (!reader.done()) violated("done() went back to false");
        break;
      }
      if (event.kind == Kind::need_more) {
        if (!rest.empty()) violated("need_more with bytes left unread");
        if (reader.done()) violated("done() with no error or close reported");
        break;
      }
      over = event.kind == Kind::error || event.kind == Kind::close;
      if (reader.done() != over) violated("done() disagrees with the last event (true only after an error or a close)");
      events.push_back(std::move(event));
    }
  } while (at < input.size());
  return events;
}

bool same(const Event& a, const Event& b, bool with_why) {
  return a.kind == b.kind && a.text == b.text && a.payload == b.payload && a.code == b.code &&
         (!with_why || a.why == b.why);
}

bool same(const std::vector<Event>& a, const std::vector<Event>& b, bool with_why) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [&](const Event& x, const Event& y) { return same(x, y, with_why); });
}

// What each event must be, alone.
void check_event(const Event& event, const ReaderLimits& limits) {
  switch (event.kind) {
    case Kind::message:
      if (event.payload.size() > limits.max_message_bytes) violated("a message longer than max_message_bytes");
      if (event.text && classify_utf8(event.payload) != Utf8::valid) violated("a text message that is not UTF-8");
      if (!event.why.empty() || event.code != 0) violated("a message with a code or a why");
      break;
    case Kind::ping:
    case Kind::pong:
      if (event.payload.size() > kMaxControlPayload) violated("a ping or pong longer than 125 bytes");
      break;
    case Kind::close:
      if (event.payload.size() > kMaxControlPayload - 2) violated("a close reason longer than 123 bytes");
      if (event.code == 1005) {
        if (!event.payload.empty()) violated("a reason with no close code");
      } else if (!is_sendable_close_code(event.code)) {
        violated("a close event with a code a peer may not send (must be an error with 1002)");
      }
      if (classify_utf8(event.payload) != Utf8::valid) violated("a close reason that is not UTF-8");
      break;
    case Kind::error:
      if (event.code != 1002 && event.code != 1007 && event.code != 1009) violated("an error with an unexpected code");
      if (event.why.empty()) violated("an error that does not say why");
      break;
    case Kind::need_more:
      violated("need_more kept as an event");
  }
}

// Reads a server's bytes (no masks) whole and checks they give `expected`,
// use every byte and leave the stream open.
void expect_read_back(std::string_view bytes, std::size_t max_message_bytes, const std::vector<Event>& expected,
                      const char* what) {
  ReaderLimits limits;
  limits.require_mask = false;
  limits.max_message_bytes = max_message_bytes;
  MessageReader reader(limits);
  const std::vector<Event> got = feed(reader, bytes, {});
  if (!same(got, expected, false)) differ(what, got, "read back", expected, "expected");
}

// The server's writer and the reader agree: a message written whole, then in
// fragments with a ping and an empty fragment among them, reads back as itself.
void round_trip(const Event& message, std::size_t max_message_bytes, std::string_view cuts) {
  const Opcode opcode = message.text ? Opcode::text : Opcode::binary;
  const std::string_view payload = message.payload;
  Event expected_message;
  expected_message.kind = Kind::message;
  expected_message.text = message.text;
  expected_message.payload = message.payload;

  std::string whole;
  append_frame(whole, opcode, payload);
  expect_read_back(whole, max_message_bytes, {expected_message}, "a message written whole reads back otherwise");

  std::string fragments;
  std::vector<Event> expected;
  std::size_t at = 0;
  std::size_t turn = 0;
  do {
    const std::size_t size = std::min(piece_size(cuts, turn), payload.size() - at);
    const bool fin = at + size == payload.size();
    append_frame(fragments, at == 0 ? opcode : Opcode::continuation, payload.substr(at, size), fin);
    if (at == 0 && !fin) {
      // Why here: a control frame and an empty fragment inside a message,
      // where a character of the text may be cut in two.
      Event ping;
      ping.kind = Kind::ping;
      ping.payload = payload.substr(0, std::min(kMaxControlPayload, payload.size()));
      append_frame(fragments, Opcode::ping, ping.payload);
      expected.push_back(std::move(ping));
      append_frame(fragments, Opcode::continuation, {}, false);
    }
    at += size;
  } while (at < payload.size());
  expected.push_back(expected_message);
  expect_read_back(fragments, max_message_bytes, expected, "a message written in fragments reads back otherwise");

  // RSV1 without a negotiated extension is a protocol error (§5.2).
  std::string compressed;
  append_frame(compressed, opcode, payload, true, true);
  Event rsv1;
  rsv1.kind = Kind::error;
  rsv1.code = 1002;
  expect_read_back(compressed, max_message_bytes, {rsv1}, "RSV1 set is not a 1002");
}

// append_close cuts a reason to fit between characters and the reader gives
// back the code and what was kept.
void close_round_trip(std::uint16_t code, std::string_view reason) {
  std::string bytes;
  append_close(bytes, code, reason);
  ReaderLimits limits;
  limits.require_mask = false;
  MessageReader reader(limits);
  const std::vector<Event> got = feed(reader, bytes, {});
  if (got.size() != 1 || got[0].kind != Kind::close || got[0].code != code) {
    differ("append_close does not read back as a close with its code", got, "read back", {}, "(a close)");
  }
  const std::string& kept = got[0].payload;
  const std::size_t room = kMaxControlPayload - 2;
  if (reason.substr(0, kept.size()) != kept) violated("append_close's reason is not a prefix of the one given");
  // Why 3: the longest a cut character can be, short of its last byte.
  if (kept.size() + (reason.size() > room ? 3 : 0) < std::min(reason.size(), room)) {
    violated("append_close cut more of the reason than a character");
  }
}

// Every byte from 0x80 up: where a multi-byte character may begin.
const std::string kNonAscii = [] {
  std::string bytes;
  for (int byte = 0x80; byte <= 0xff; ++byte) bytes += static_cast<char>(byte);
  return bytes;
}();

// permessage-deflate: `bytes` inflated as a compressed payload stop at the
// limit however they are made; and compressed (shared, and with context
// takeover twice in a row), they inflate back to themselves.
void deflate_checks(std::string_view bytes, std::uint8_t limit_seed) {
  using tiffany::http::websocket::MessageDeflater;
  using tiffany::http::websocket::MessageInflater;
  std::string out;
  const std::size_t limit = 1 + static_cast<std::size_t>(limit_seed) * 64;
  MessageInflater::shared().inflate(bytes, limit, out);
  if (out.size() > limit) violated("an inflated message passed its limit");
  std::string compressed;
  MessageDeflater::shared(15, 4).compress(bytes, compressed);
  if (MessageInflater::shared().inflate(compressed, bytes.size(), out) != MessageInflater::Result::ok || out != bytes) {
    violated("a message compressed without context takeover did not inflate back to itself");
  }
  MessageDeflater keeping(9, 1, true);
  MessageInflater keeping_inflater(9, true);
  for (int round = 0; round < 2; ++round) {
    keeping.compress(bytes, compressed);
    if (keeping_inflater.inflate(compressed, bytes.size(), out) != MessageInflater::Result::ok || out != bytes) {
      violated("a message compressed with context takeover did not inflate back to itself");
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  ReaderLimits limits;
  if ((data[0] & 1) != 0) {
    limits.require_mask = false;
    limits.max_message_bytes = data[0] >> 1;
  }
  const std::size_t cut_bytes = std::min<std::size_t>(1 + data[1] % 4, size - 1);
  const std::string_view cuts(reinterpret_cast<const char*>(data) + 1, cut_bytes);
  const std::string_view input(reinterpret_cast<const char*>(data) + 1 + cut_bytes, size - 1 - cut_bytes);

  MessageReader whole_reader(limits);
  const std::vector<Event> whole = feed(whole_reader, input, {});
  MessageReader cut_reader(limits);
  const std::vector<Event> cut = feed(cut_reader, input, cuts);
  if (!same(whole, cut, true)) differ("fed whole and in pieces, the events differ", whole, "whole", cut, "pieces");
  const std::vector<Event> reference = websocket_reference::decode(input, limits);
  if (!same(whole, reference, false)) differ("MessageReader and the reference decoder differ", whole, "reader", reference, "reference");

  deflate_checks(input, data[1]);
  for (const Event& event : whole) {
    check_event(event, limits);
    if (event.kind == Kind::message) {
      round_trip(event, limits.max_message_bytes, cuts);
      deflate_checks(event.payload, data[0]);
      if (event.text) close_round_trip(1000, event.payload);
      // Why padded: a character must straddle the 123-byte cut for the cut to be tested, and
      // fuzzed messages that long with one in the right place are rare.
      const std::size_t first_non_ascii = event.payload.find_first_of(kNonAscii);
      if (event.text && first_non_ascii != std::string::npos) {
        for (std::size_t pad = kMaxControlPayload - 5; pad < kMaxControlPayload - 2; ++pad) {
          close_round_trip(3000, std::string(pad, 'a') + event.payload.substr(first_non_ascii));
        }
      }
    }
    if (event.kind == Kind::close && event.code != 1005) close_round_trip(event.code, event.payload);
  }
  return 0;
}
