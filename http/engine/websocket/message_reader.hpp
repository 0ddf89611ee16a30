// MessageReader: a client's WebSocket byte stream (RFC 6455) -> whole messages and control frames.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "http/engine/websocket/frame.hpp"
#include "http/internal/websocket/utf8_stream.hpp"

namespace tiffany::http::websocket {

/// What the stream said next.
struct Event {
  enum class Kind : std::uint8_t {
    need_more,  // every byte given is used; feed more
    message,    // a whole data message: `text` or binary, in `payload`
    ping,       // `payload`: to echo in a pong
    pong,
    close,      // the peer's close frame: `code` (1005 when it gave none) and its reason in `payload`
    error,      // the stream broke a rule: close with `code`; `why` says which rule
  };
  Kind kind = Kind::need_more;
  bool text = false;
  bool compressed = false;  // a message whose first frame had RSV1 (permessage-deflate): `payload` is deflated, its UTF-8 not checked yet
  std::string payload;
  std::uint16_t code = 0;
  std::string why;
};

/// The most a compressed message's frames may carry for a limit of `max`
/// bytes once inflated. Why more than `max`: the limit is on the message the
/// handler receives (checked once inflated), and deflate makes data that does
/// not compress a little longer (a fixed-Huffman coder up to 9 bits a byte).
constexpr std::size_t compressed_message_limit(std::size_t max) noexcept { return max + max / 8 + 1024; }

struct ReaderLimits {
  std::size_t max_message_bytes = 1 << 20;  // a longer message is an error with 1009 (§7.4.1); see compressed_message_limit
  bool require_mask = true;                 // a server's reader: a client's frames must be masked (§5.1)
  bool allow_compressed = false;            // permessage-deflate was agreed: RSV1 may mark a message's first frame (RFC 7692 §6)
};

/// An incremental parser of one direction of a WebSocket connection: frame
/// headers (minimal lengths, reserved bits and opcodes), unmasking,
/// fragmented messages with control frames between their fragments, UTF-8 of
/// text messages checked as they arrive (1007), close frames' codes and
/// reasons, and the message size limit (1009). Every rule broken is reported
/// once, as an error event with the close code RFC 6455 asks for; then, as
/// after a close frame, the reader consumes nothing more.
/// Not thread-safe; one per connection.
class MessageReader {
 public:
  explicit MessageReader(ReaderLimits limits = {}) : limits_(limits) {}

  /// Reads from the front of `input`, advancing it past the bytes used, until
  /// it has an event to return (need_more when `input` ran out first).
  Event next(std::string_view& input);
  /// True after an error or a close frame: the stream is over.
  bool done() const noexcept { return done_; }

 private:
  enum class Stage : std::uint8_t { header, payload };

  bool take_header(std::string_view& input, Event& event);
  Event frame_complete();
  /// XORs `size` payload bytes with the mask, from mask_offset_ on.
  void unmask(char* bytes, std::size_t size) noexcept;
  Event fail(std::uint16_t code, std::string why);

  ReaderLimits limits_;
  Stage stage_ = Stage::header;
  bool done_ = false;
  std::array<unsigned char, 14> header_{};  // a header split across reads: 2 + 8 length + 4 mask at most
  std::size_t header_size_ = 0;
  // The frame being read.
  Opcode opcode_ = Opcode::continuation;
  bool fin_ = false;
  bool masked_ = false;
  std::array<unsigned char, 4> mask_{};
  std::uint64_t remaining_ = 0;  // payload bytes still to come
  std::size_t mask_offset_ = 0;  // where in the mask the next payload byte is
  // The message being assembled, across fragments; and the control frame's payload.
  bool in_message_ = false;
  bool text_ = false;
  bool compressed_ = false;  // the message being assembled is deflated (checked for size here, for UTF-8 once inflated)
  std::string message_;
  std::string control_;
  Utf8Stream utf8_;
};

}  // namespace tiffany::http::websocket
