// StreamInput: holding a stream's DATA for its reader, and waking it.
#include "server/http2/stream_input.hpp"

#include <algorithm>
#include <cstring>
#include <utility>

namespace tiffany::http2 {
namespace {

constexpr std::size_t kCompactFrom = 16 * 1024;  // taken bytes at the buffer's front that are dropped at once

}  // namespace

void StreamInput::receive(std::string_view bytes) {
  if (status_ != http::BodyStatus::data || bytes.empty()) return;
  if (from_ == held_.size()) {
    held_.clear();
    from_ = 0;
  }
  held_.append(bytes);
  received_ += bytes.size();
  arrived_.set();
}

void StreamInput::end() noexcept {
  if (status_ != http::BodyStatus::data) return;
  status_ = http::BodyStatus::end;
  arrived_.set();
}

void StreamInput::fail(http::BodyStatus why) noexcept {
  if (status_ > http::BodyStatus::end) return;
  status_ = why;
  held_.clear();
  from_ = 0;
  arrived_.set();
}

Task<http::BodyStatus> StreamInput::wait() {
  while (held() == 0 && status_ == http::BodyStatus::data) co_await arrived_.wait();
  co_return held() > 0 ? http::BodyStatus::data : status_;
}

std::size_t StreamInput::take(char* out, std::size_t max) noexcept {
  const std::size_t size = std::min(max, held());
  std::memcpy(out, held_.data() + from_, size);
  from_ += size;
  if (from_ == held_.size()) {
    held_.clear();
    from_ = 0;
  } else if (from_ >= kCompactFrom) {
    // Why: a reader that takes a piece at a time while the client keeps its
    // window full never empties the buffer; the taken front must go, or the
    // buffer grows by everything the stream carries.
    held_.erase(0, from_);
    from_ = 0;
  }
  return size;
}

std::string_view StreamInput::take_all() {
  // Why a swap: the piece must stay valid while more arrives behind it.
  taken_.clear();
  if (from_ == 0) {
    std::swap(taken_, held_);
  } else {
    taken_.assign(held_, from_);
    held_.clear();
  }
  from_ = 0;
  return taken_;
}

}  // namespace tiffany::http2
