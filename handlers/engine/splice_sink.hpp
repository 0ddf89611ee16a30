// SpliceSink: how the built-in proxy reaches an HTTP/1.1 connection's socket to splice a response body into it.
#pragma once

#include <chrono>
#include <cstdint>

#include <tiffany/coro/task.hpp>
#include <tiffany/http/response.hpp>

namespace tiffany {

/// Where begin_splice leaves the body.
struct SpliceTarget {
  int socket = -1;    ///< the client's socket to splice the body into; -1: write it with Response::write
  bool gone = false;  ///< the head could not be sent: the client is gone, stop
};

/// Implemented beside BodySink by the server's Exchange over its protocol's
/// writer (only HTTP/1.1 on a plain socket gives a socket: HTTP/2 and TLS
/// say -1); the proxy finds it with a dynamic_cast of Response::sink() (test
/// sinks do not implement it, and a middleware that wraps the sink hides it:
/// the body is then copied, and transformed as that sink likes).
///
/// Why not a virtual of BodySink, as send_file() is: BodySink is in the SDK
/// (a new virtual changes the plugin ABI), and only the built-in proxy splices.
class SpliceSink {
 public:
  /// Sends the response head (and the answers queued before it) as
  /// write_body does, then says whether the body may go on the wire byte for
  /// byte from another socket: a plain socket (no TLS), the length declared
  /// (Response::set_content_length: no chunks), no content coding, a body
  /// that is sent (not HEAD, 204 or 304). Otherwise `socket` is -1 and the
  /// caller writes the body with Response::write as usual.
  virtual Task<SpliceTarget> begin_splice(http::Response& response) = 0;
  /// Counts `bytes` of the body that went into the socket by splice (the
  /// access log's and /metrics' bytes, and the declared length's check).
  virtual void spliced(std::uint64_t bytes) noexcept = 0;
  /// A splice into the socket failed (`timed_out`: the client took nothing
  /// for write_timeout()): no more responses on this connection.
  virtual void splice_failed(bool timed_out) noexcept = 0;
  /// The limit on each wait for the client to take more bytes.
  virtual std::chrono::milliseconds write_timeout() const noexcept = 0;

 protected:
  ~SpliceSink() = default;
};

}  // namespace tiffany
