// MessageDeflater and MessageInflater: one WebSocket message through zlib's raw deflate (RFC 7692 §7.2).
#pragma once

#include <zlib.h>

#include <cstddef>
#include <string>
#include <string_view>

namespace tiffany::http::websocket {

/// Compresses whole messages: raw deflate, flushed to a byte boundary, the
/// final empty block's 0x00 0x00 0xff 0xff removed (§7.2.1). With
/// `keep_context` the window carries over to the next message (context
/// takeover); without, each message starts afresh, so one deflater can serve
/// every connection of a thread in turn. Not thread-safe.
class MessageDeflater {
 public:
  /// `window_bits` 9 to 15, `level` 1 to 9. Throws std::bad_alloc.
  MessageDeflater(int window_bits, int level, bool keep_context);
  MessageDeflater(const MessageDeflater&) = delete;
  MessageDeflater& operator=(const MessageDeflater&) = delete;
  ~MessageDeflater();

  /// Replaces `out` with the compressed `message`.
  void compress(std::string_view message, std::string& out);

  /// The thread's shared deflater without context takeover for `window_bits` and `level`.
  static MessageDeflater& shared(int window_bits, int level);

 private:
  z_stream stream_{};
  bool keep_context_;
};

/// Inflates whole messages (§7.2.2: appends 0x00 0x00 0xff 0xff), never to
/// more than a limit however small the input: a decompression bomb stops
/// at the limit. With `keep_context` the window carries over (the client
/// keeps its context); without, each message starts afresh. Not thread-safe.
class MessageInflater {
 public:
  enum class Result { ok, too_big, corrupt };

  /// `window_bits` 8 to 15. Throws std::bad_alloc.
  MessageInflater(int window_bits, bool keep_context);
  MessageInflater(const MessageInflater&) = delete;
  MessageInflater& operator=(const MessageInflater&) = delete;
  ~MessageInflater();

  /// Replaces `out` with `payload` inflated; too_big as soon as it would pass `max_bytes`.
  Result inflate(std::string_view payload, std::size_t max_bytes, std::string& out);

  /// The thread's shared inflater without context takeover (a 15-bit window, which inflates any).
  static MessageInflater& shared();

 private:
  z_stream stream_{};
  bool keep_context_;
};

}  // namespace tiffany::http::websocket
