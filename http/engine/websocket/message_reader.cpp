// MessageReader: header, then payload, per frame; data frames gather into a message.
#include "http/engine/websocket/message_reader.hpp"

#include <algorithm>
#include <cstring>
#include <utility>

#include <tiffany/http/utf8.hpp>

namespace tiffany::http::websocket {
namespace {

bool is_control(Opcode opcode) noexcept { return (static_cast<std::uint8_t>(opcode) & 0x8) != 0; }

bool is_known(std::uint8_t opcode) noexcept {
  return opcode <= 0x2 || (opcode >= 0x8 && opcode <= 0xa);
}

}  // namespace

Event MessageReader::fail(std::uint16_t code, std::string why) {
  done_ = true;
  Event event;
  event.kind = Event::Kind::error;
  event.code = code;
  event.why = std::move(why);
  return event;
}

// Gathers the header (its size known from its first two bytes) and checks it;
// false with `event` still need_more when `input` ran out, or an error.
bool MessageReader::take_header(std::string_view& input, Event& event) {
  const auto take = [&](std::size_t wanted) {
    const std::size_t n = std::min(wanted - std::min(wanted, header_size_), input.size());
    std::copy_n(input.data(), n, header_.data() + header_size_);
    header_size_ += n;
    input.remove_prefix(n);
    return header_size_ >= wanted;
  };
  if (!take(2)) return false;
  const std::uint8_t length7 = header_[1] & 0x7f;
  const std::size_t length_bytes = length7 == 126 ? 2 : length7 == 127 ? 8 : 0;
  const bool masked = (header_[1] & 0x80) != 0;
  const std::size_t size = 2 + length_bytes + (masked ? 4 : 0);
  if (!take(size)) return false;
  header_size_ = 0;

  fin_ = (header_[0] & 0x80) != 0;
  const std::uint8_t opcode = header_[0] & 0x0f;
  const bool rsv1 = (header_[0] & 0x40) != 0;
  if ((header_[0] & 0x30) != 0 || (rsv1 && !limits_.allow_compressed)) {
    event = fail(close_code::protocol_error, "a reserved bit is set and no extension was agreed");
    return false;
  }
  if (!is_known(opcode)) {
    event = fail(close_code::protocol_error, "reserved opcode " + std::to_string(opcode));
    return false;
  }
  opcode_ = static_cast<Opcode>(opcode);
  masked_ = masked;
  if (!masked_ && limits_.require_mask) {
    event = fail(close_code::protocol_error, "a client frame is not masked");
    return false;
  }
  std::uint64_t length = length7;
  if (length_bytes > 0) {
    length = 0;
    for (std::size_t i = 0; i < length_bytes; ++i) length = (length << 8) | header_[2 + i];
    const bool minimal = length_bytes == 2 ? length > 125 : length > 0xffff;
    if ((length >> 63) != 0 || !minimal) {
      event = fail(close_code::protocol_error, "a payload length not in its shortest form");
      return false;
    }
  }
  if (masked_) std::copy_n(header_.data() + 2 + length_bytes, 4, mask_.data());
  if (is_control(opcode_)) {
    if (!fin_) {
      event = fail(close_code::protocol_error, "a fragmented control frame");
      return false;
    }
    if (length > kMaxControlPayload) {
      event = fail(close_code::protocol_error, "a control frame longer than 125 bytes");
      return false;
    }
    if (rsv1) {
      event = fail(close_code::protocol_error, "RSV1 on a control frame");  // RFC 7692 §6.1
      return false;
    }
    control_.clear();
  } else if (opcode_ == Opcode::continuation) {
    if (!in_message_) {
      event = fail(close_code::protocol_error, "a continuation frame with no message begun");
      return false;
    }
    if (rsv1) {
      event = fail(close_code::protocol_error, "RSV1 on a continuation frame");  // RFC 7692 §6.1
      return false;
    }
  } else {
    if (in_message_) {
      event = fail(close_code::protocol_error, "a new message before the last one's final fragment");
      return false;
    }
    in_message_ = true;
    text_ = opcode_ == Opcode::text;
    compressed_ = rsv1;
    message_.clear();
    utf8_.reset();
  }
  const std::size_t limit =
      compressed_ ? compressed_message_limit(limits_.max_message_bytes) : limits_.max_message_bytes;
  if (!is_control(opcode_) && length > limit - message_.size()) {
    event = fail(close_code::message_too_big, compressed_ ? "a compressed message longer than " + std::to_string(limit) + " bytes"
                                                          : "a message longer than " + std::to_string(limit) + " bytes");
    return false;
  }
  remaining_ = length;
  mask_offset_ = 0;
  stage_ = Stage::payload;
  return true;
}

void MessageReader::unmask(char* bytes, std::size_t size) noexcept {
  // Why eight at a time: byte by byte through members, the compiler reloads
  // the pointer and stores the offset per byte; this was most of the
  // reader's cost per message (loadtest/ws_bench.sh).
  std::size_t offset = mask_offset_;
  std::size_t i = 0;
  while (i < size && (offset & 3) != 0) bytes[i++] ^= static_cast<char>(mask_[offset++ & 3]);
  if (size - i >= 8) {
    std::uint64_t word_mask = 0;
    unsigned char lane[8];
    for (int k = 0; k < 8; ++k) lane[k] = mask_[k & 3];
    std::memcpy(&word_mask, lane, 8);
    for (; size - i >= 8; i += 8, offset += 8) {
      std::uint64_t word = 0;
      std::memcpy(&word, bytes + i, 8);
      word ^= word_mask;
      std::memcpy(bytes + i, &word, 8);
    }
  }
  for (; i < size; ++i) bytes[i] ^= static_cast<char>(mask_[offset++ & 3]);
  mask_offset_ = offset;
}

Event MessageReader::next(std::string_view& input) {
  Event event;
  while (!done_) {
    if (stage_ == Stage::header && !take_header(input, event)) return event;
    const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(remaining_, input.size()));
    std::string& target = is_control(opcode_) ? control_ : message_;
    const std::size_t start = target.size();
    target.append(input.data(), n);
    input.remove_prefix(n);
    remaining_ -= n;
    if (masked_) unmask(target.data() + start, n);
    if (!is_control(opcode_) && text_ && !compressed_ && !utf8_.feed(std::string_view(target).substr(start))) {
      return fail(close_code::invalid_payload, "a text message that is not UTF-8");
    }
    if (remaining_ > 0) return event;  // need_more
    stage_ = Stage::header;
    event = frame_complete();
    if (event.kind != Event::Kind::need_more) return event;
  }
  return event;
}

Event MessageReader::frame_complete() {
  Event event;
  switch (opcode_) {
    case Opcode::ping:
    case Opcode::pong:
      event.kind = opcode_ == Opcode::ping ? Event::Kind::ping : Event::Kind::pong;
      event.payload = std::move(control_);
      return event;
    case Opcode::close: {
      if (control_.size() == 1) return fail(close_code::protocol_error, "a close frame with a one-byte code");
      event.kind = Event::Kind::close;
      event.code = close_code::no_status;
      if (control_.size() >= 2) {
        event.code = static_cast<std::uint16_t>((static_cast<unsigned char>(control_[0]) << 8) |
                                                static_cast<unsigned char>(control_[1]));
        if (!is_sendable_close_code(event.code)) {
          return fail(close_code::protocol_error, "close code " + std::to_string(event.code) + " may not be sent");
        }
        event.payload = control_.substr(2);
        if (!is_valid_utf8(event.payload)) return fail(close_code::invalid_payload, "a close reason that is not UTF-8");
      }
      done_ = true;
      return event;
    }
    default:
      break;
  }
  if (!fin_) return event;  // need_more: the message goes on in the next fragment
  if (text_ && !compressed_ && !utf8_.complete()) {
    return fail(close_code::invalid_payload, "a text message that ends inside a character");
  }
  in_message_ = false;
  event.kind = Event::Kind::message;
  event.text = text_;
  event.compressed = compressed_;
  event.payload = std::move(message_);
  message_.clear();
  return event;
}

}  // namespace tiffany::http::websocket
