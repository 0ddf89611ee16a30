// Utf8Stream: a byte-at-a-time check of each sequence's lead and continuation ranges.
#include "http/internal/websocket/utf8_stream.hpp"

namespace tiffany::http::websocket {
namespace {

// The continuation bytes a lead byte needs (0 for ASCII; -1: it cannot lead).
int continuations_after(unsigned char lead) noexcept {
  if (lead < 0x80) return 0;
  if (lead >= 0xc2 && lead <= 0xdf) return 1;
  if (lead >= 0xe0 && lead <= 0xef) return 2;
  if (lead >= 0xf0 && lead <= 0xf4) return 3;
  return -1;
}

// Whether `byte` may follow as the `index`-th byte (1-based after the lead) of
// the sequence `lead` starts (RFC 3629 §4: the second byte's range depends on the lead).
bool fits(unsigned char lead, std::size_t index, unsigned char byte) noexcept {
  unsigned char low = 0x80;
  unsigned char high = 0xbf;
  if (index == 1) {
    if (lead == 0xe0) low = 0xa0;   // no overlongs
    if (lead == 0xed) high = 0x9f;  // no surrogates
    if (lead == 0xf0) low = 0x90;   // no overlongs
    if (lead == 0xf4) high = 0x8f;  // nothing above U+10FFFF
  }
  return byte >= low && byte <= high;
}

}  // namespace

bool Utf8Stream::feed(std::string_view piece) noexcept {
  for (std::size_t i = 0; valid_ && i < piece.size(); ++i) {
    const auto byte = static_cast<unsigned char>(piece[i]);
    if (pending_ > 0) {
      valid_ = fits(lead_, seen_, byte);
      ++seen_;
      --pending_;
      continue;
    }
    if (byte < 0x80) continue;  // Why first: ASCII is the common case
    const int more = continuations_after(byte);
    valid_ = more > 0;
    lead_ = byte;
    seen_ = 1;
    pending_ = more > 0 ? static_cast<std::size_t>(more) : 0;
  }
  return valid_;
}

}  // namespace tiffany::http::websocket
