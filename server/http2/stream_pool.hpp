// StreamPool: finished HTTP/2 streams kept to serve the next ones with the buffers they grew.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "server/http/http_site.hpp"

namespace tiffany::http2 {

class Http2Connection;
class Http2Stream;

/// One listener's spare streams on one worker, as HttpProtocol keeps spare
/// HTTP/1.1 connection states: a stream reused keeps its request's field
/// and string buffers, its answer's and its id's, so a request costs no
/// allocation for them. Idle connections hold none: the pool belongs to the
/// protocol, which outlives its connections. Single-threaded (the worker's).
class StreamPool {
 public:
  /// Spare streams kept; more are freed.
  static constexpr std::size_t kMaxSpare = 256;

  explicit StreamPool(const http::HttpSite& site) noexcept : site_(site) {}
  StreamPool(const StreamPool&) = delete;
  StreamPool& operator=(const StreamPool&) = delete;

  /// A stream for `id` on `connection`: a spare one readied, or a new one.
  std::shared_ptr<Http2Stream> take(Http2Connection& connection, std::int32_t id);
  /// Keeps `stream` for a later take (trimmed) when nobody else holds it
  /// and the pool has room; else lets it go.
  void give(std::shared_ptr<Http2Stream>&& stream);

 private:
  const http::HttpSite& site_;
  std::vector<std::shared_ptr<Http2Stream>> spare_;
};

}  // namespace tiffany::http2
