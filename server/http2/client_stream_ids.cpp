// ClientStreamIds: the highest id, whether one was skipped, and the last resets.
#include "server/http2/client_stream_ids.hpp"

#include <algorithm>

namespace tiffany::http2 {

ClientStreamIds::Verdict ClientStreamIds::headers_begin(std::int32_t id, bool open) noexcept {
  // Why not even ids, nor 0: nghttp2 answers those itself (PROTOCOL_ERROR).
  if (id <= 0 || id % 2 == 0) return Verdict::go_on;
  if (id > highest_) {
    if (id != highest_ + 2) skipped_ = true;  // the first is 1: -1 + 2
    highest_ = id;
    return Verdict::go_on;
  }
  if (open || reset_lately(id)) return Verdict::go_on;
  // Why STREAM_CLOSED only when sure: the highest id was opened, and with
  // none skipped so was every id below it; an id that may never have been
  // opened is one going back (§5.1.1).
  return id == highest_ || !skipped_ ? Verdict::stream_closed : Verdict::protocol_error;
}

void ClientStreamIds::reset_sent(std::int32_t id) {
  if (reset_lately(id)) return;
  if (resets_.size() < kRememberedResets) {
    resets_.push_back(id);
    return;
  }
  resets_[next_reset_] = id;
  next_reset_ = (next_reset_ + 1) % kRememberedResets;
}

bool ClientStreamIds::reset_lately(std::int32_t id) const noexcept {
  return std::find(resets_.begin(), resets_.end(), id) != resets_.end();
}

}  // namespace tiffany::http2
