// ScriptedBody: pieces, then the end or a failure, each read after an optional virtual-time gap.
#include <tiffany/handlers/testkit/scripted_body.hpp>

#include <utility>

#include <tiffany/coro/syscalls.hpp>

namespace tiffany::testkit {

ScriptedBody::ScriptedBody(std::vector<std::string> pieces, http::BodyStatus ending, std::chrono::milliseconds gap)
    : pieces_(std::move(pieces)), ending_(ending), gap_(gap) {}

Task<http::BodyChunk> ScriptedBody::read_body() {
  ++reads_;
  if (gap_.count() > 0 && !finished_) co_await Sleep{gap_};
  // Why empty pieces are skipped: the server never hands out an empty piece.
  while (next_ < pieces_.size() && pieces_[next_].empty()) ++next_;
  if (next_ < pieces_.size()) co_return http::BodyChunk(http::BodyStatus::data, pieces_[next_++]);
  finished_ = true;
  co_return http::BodyChunk(ending_);
}

}  // namespace tiffany::testkit
