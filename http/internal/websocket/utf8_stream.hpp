// Utf8Stream: UTF-8 validation of text that arrives in pieces (a WebSocket text message's fragments).
#pragma once

#include <cstddef>
#include <string_view>

namespace tiffany::http::websocket {

/// Validates UTF-8 (RFC 3629: no overlongs, no surrogates, nothing above
/// U+10FFFF) fed in arbitrary pieces, failing at the first byte that no valid
/// text could continue with, not only at the end (RFC 6455 §8.1 lets an
/// endpoint fail fast, and a peer sending megabytes of garbage should not be
/// read to its end).
class Utf8Stream {
 public:
  /// False once the bytes so far cannot start valid UTF-8; stays false.
  bool feed(std::string_view piece) noexcept;
  /// True when everything fed is valid and no sequence is left cut off.
  bool complete() const noexcept { return valid_ && pending_ == 0; }
  bool valid() const noexcept { return valid_; }
  void reset() noexcept { *this = Utf8Stream(); }

 private:
  bool valid_ = true;
  unsigned char lead_ = 0;      // the first byte of a sequence cut off at a piece's end
  std::size_t pending_ = 0;     // how many of its continuation bytes are still to come
  std::size_t seen_ = 0;        // how many bytes of that sequence came (lead included)
};

}  // namespace tiffany::http::websocket
