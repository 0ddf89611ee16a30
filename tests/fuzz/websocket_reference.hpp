// The WebSocket fuzzer's oracle: UTF-8 checked by code points and a one-shot RFC 6455 decoder, written apart from MessageReader.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "http/engine/websocket/message_reader.hpp"

namespace websocket_reference {

using tiffany::http::websocket::Event;
using tiffany::http::websocket::ReaderLimits;

enum class Utf8 : std::uint8_t {
  valid,      // whole characters only
  truncated,  // valid, then the start of a character that more bytes could finish
  invalid,    // no bytes added at the end could make it valid
};

// Why by code points and intervals: Utf8Stream and is_valid_utf8 both check
// byte ranges per lead byte; a shared mistake in those tables would pass a
// check written the same way.
inline Utf8 classify_utf8(std::string_view text) {
  static constexpr std::uint32_t kSmallest[] = {0, 0, 0x80, 0x800, 0x10000};  // by sequence length: no overlongs
  for (std::size_t i = 0; i < text.size();) {
    const auto lead = static_cast<unsigned char>(text[i]);
    std::size_t length = 0;
    std::uint32_t point = 0;
    if (lead < 0x80) {
      ++i;
      continue;
    }
    if ((lead & 0xe0) == 0xc0) {
      length = 2;
      point = lead & 0x1f;
    } else if ((lead & 0xf0) == 0xe0) {
      length = 3;
      point = lead & 0x0f;
    } else if ((lead & 0xf8) == 0xf0) {
      length = 4;
      point = lead & 0x07;
    } else {
      return Utf8::invalid;
    }
    const std::size_t have = std::min(length, text.size() - i);
    for (std::size_t k = 1; k < have; ++k) {
      const auto byte = static_cast<unsigned char>(text[i + k]);
      if ((byte & 0xc0) != 0x80) return Utf8::invalid;
      point = (point << 6) | (byte & 0x3f);
    }
    // The code points this sequence can still become: [low, high]. A whole
    // sequence is the interval of one point.
    const unsigned missing_bits = 6 * static_cast<unsigned>(length - have);
    std::uint32_t low = point << missing_bits;
    std::uint32_t high = low | ((std::uint32_t{1} << missing_bits) - 1);
    low = std::max(low, kSmallest[length]);
    high = std::min<std::uint32_t>(high, 0x10ffff);
    if (low > high) return Utf8::invalid;
    if (low >= 0xd800 && high <= 0xdfff) return Utf8::invalid;  // surrogates only
    if (have < length) return Utf8::truncated;                  // the text ends inside this sequence
    i += length;
  }
  return Utf8::valid;
}

// RFC 6455 §7.4: the codes a peer may put in a close frame, and IANA's 1012-1014.
inline bool may_send(std::uint16_t code) {
  return (code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1014) || (code >= 3000 && code <= 4999);
}

// Every event a reader with `limits` owes for `input` fed at once, up to the
// first error or close: the same kinds, text flags, payloads and codes
// MessageReader gives (not the `why`). Where a frame breaks several rules,
// the 1002 ones are reported before 1009, as MessageReader does.
inline std::vector<Event> decode(std::string_view input, ReaderLimits limits) {
  std::vector<Event> events;
  const auto event = [&](Event::Kind kind, std::uint16_t code = 0, std::string payload = {}, bool text = false) {
    Event e;
    e.kind = kind;
    e.code = code;
    e.payload = std::move(payload);
    e.text = text;
    events.push_back(std::move(e));
    return events;
  };
  const auto error = [&](std::uint16_t code) { return event(Event::Kind::error, code); };
  const auto byte = [&](std::size_t at) { return static_cast<unsigned char>(input[at]); };
  bool in_message = false;
  bool text = false;
  std::string message;
  std::size_t at = 0;
  for (;;) {
    if (input.size() - at < 2) return events;
    const unsigned char first = byte(at);
    const unsigned char second = byte(at + 1);
    const bool masked = (second & 0x80) != 0;
    const std::size_t length_bytes = (second & 0x7f) == 126 ? 2 : (second & 0x7f) == 127 ? 8 : 0;
    const std::size_t header = 2 + length_bytes + (masked ? 4 : 0);
    if (input.size() - at < header) return events;
    const unsigned opcode = first & 0x0f;
    const bool fin = (first & 0x80) != 0;
    const bool control = opcode >= 8;
    if ((first & 0x70) != 0) return error(1002);
    if (!(opcode <= 2 || (opcode >= 8 && opcode <= 10))) return error(1002);
    if (!masked && limits.require_mask) return error(1002);
    std::uint64_t length = second & 0x7f;
    if (length_bytes > 0) {
      length = 0;
      for (std::size_t k = 0; k < length_bytes; ++k) length = length * 256 + byte(at + 2 + k);
      if (length_bytes == 2 && length < 126) return error(1002);
      if (length_bytes == 8 && (length < 0x10000 || length >= (std::uint64_t{1} << 63))) return error(1002);
    }
    if (control && (!fin || length > 125)) return error(1002);
    if (opcode == 0 && !in_message) return error(1002);
    if ((opcode == 1 || opcode == 2) && in_message) return error(1002);
    if (opcode == 1 || opcode == 2) {
      in_message = true;
      text = opcode == 1;
      message.clear();
    }
    if (!control && message.size() + length > limits.max_message_bytes) return error(1009);
    const std::size_t mask_at = at + 2 + length_bytes;
    at += header;
    const std::size_t arrived = static_cast<std::size_t>(std::min<std::uint64_t>(length, input.size() - at));
    std::string payload(input.substr(at, arrived));
    at += arrived;
    if (masked) {
      for (std::size_t k = 0; k < payload.size(); ++k) payload[k] = static_cast<char>(payload[k] ^ input[mask_at + k % 4]);
    }
    if (!control) {
      message += payload;
      if (text && classify_utf8(message) == Utf8::invalid) return error(1007);
    }
    if (arrived < length) return events;
    if (opcode == 9 || opcode == 10) {
      event(opcode == 9 ? Event::Kind::ping : Event::Kind::pong, 0, payload);
    } else if (opcode == 8) {
      if (payload.empty()) return event(Event::Kind::close, 1005);
      if (payload.size() == 1) return error(1002);
      const auto code = static_cast<std::uint16_t>(static_cast<unsigned char>(payload[0]) * 256 +
                                                   static_cast<unsigned char>(payload[1]));
      if (!may_send(code)) return error(1002);
      if (classify_utf8(std::string_view(payload).substr(2)) != Utf8::valid) return error(1007);
      return event(Event::Kind::close, code, payload.substr(2));
    } else if (fin) {
      if (text && classify_utf8(message) != Utf8::valid) return error(1007);
      event(Event::Kind::message, 0, message, text);
      in_message = false;
      message.clear();
    }
  }
}

}  // namespace websocket_reference
