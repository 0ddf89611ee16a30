// StreamPool: take a spare stream or make one; keep a finished one.
#include "server/http2/stream_pool.hpp"

#include <utility>

#include "server/http2/http2_stream.hpp"

namespace tiffany::http2 {

std::shared_ptr<Http2Stream> StreamPool::take(Http2Connection& connection, std::int32_t id) {
  if (spare_.empty()) return std::make_shared<Http2Stream>(connection, site_, id);
  std::shared_ptr<Http2Stream> stream = std::move(spare_.back());
  spare_.pop_back();
  stream->reuse(connection, id);
  return stream;
}

void StreamPool::give(std::shared_ptr<Http2Stream>&& stream) {
  // Why only a sole owner: a task still holding it (a handler unwinding) may still use it.
  if (stream == nullptr || stream.use_count() != 1 || spare_.size() >= kMaxSpare) return;
  stream->trim();
  spare_.push_back(std::move(stream));
}

}  // namespace tiffany::http2
