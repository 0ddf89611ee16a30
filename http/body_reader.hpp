// BodyReader: a request body read piece by piece as it arrives (streaming request bodies).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <tiffany/coro/task.hpp>

namespace tiffany::http {

/// What one read of a request body gave.
enum class BodyStatus : std::uint8_t {
  data,         ///< `bytes` holds the next piece of the decoded body
  end,          ///< the whole body has been read
  too_large,    ///< the body passed max_body_bytes: the server answers 413 and closes
  timed_out,    ///< no piece within the listener's body timeout: 408 and close
  bad_framing,  ///< malformed chunked framing: 400 and close
  peer_gone,    ///< the client closed or failed before the body ended: close
};

/// One piece of a body, its end, or why there is no more.
struct BodyChunk {
  BodyStatus status = BodyStatus::end;
  /// With BodyStatus::data: the piece, never empty. It views the
  /// connection's read buffer and is valid only until the next read (or the
  /// end of the handler): copy what must outlive that.
  std::string_view bytes;

  BodyChunk() = default;
  BodyChunk(BodyStatus status_, std::string_view bytes_ = {}) noexcept : status(status_), bytes(bytes_) {}
  /// True for a piece of data (keep reading); false at the end or on a failure.
  explicit operator bool() const noexcept { return status == BodyStatus::data; }
  /// True when the body did not arrive whole (too large, timed out, bad framing, peer gone).
  bool failed() const noexcept { return status > BodyStatus::end; }
};

/// Where a streamed body comes from: the HTTP connection implements it (and
/// the test kit's scripted bodies).
class BodySource {
 public:
  virtual ~BodySource() = default;
  /// The next piece, the end, or a failure; after the end or a failure,
  /// that status again on every call.
  virtual Task<BodyChunk> read_body() = 0;
};

/// A request's body as a sequence of pieces:
///
///   for (;;) {
///     const http::BodyChunk chunk = co_await request.body_reader().read();
///     if (!chunk) break;              // the end, or a failure (chunk.failed())
///     digest.update(chunk.bytes);     // valid until the next read
///   }
///
/// For a handler whose `streams_request_body()` is true, the server calls
/// it as soon as the header section is routed, and each read takes the next
/// bytes from the socket (back-pressure: nothing is read before the handler
/// asks; `Expect: 100-continue` is answered on the first read). For any
/// other handler the body was read whole into `Request::body` first, and the
/// reader gives it as one piece: a streaming handler works either way.
///
/// Threads and lifetime: the reader belongs to the request; read it from the
/// handler's own task (its coroutine or one it awaits), one read at a time,
/// and never after the handler returns. Not from a task the handler spawns
/// (Spawn, gather, race): the body timeouts cancel the connection's task, so
/// a stalled read there is never timed out, and the handler is canceled
/// instead (503, not 408) while that read is left pending.
class BodyReader {
 public:
  /// The next piece of the body; see BodyChunk.
  Task<BodyChunk> read();
  /// True when the body arrives piece by piece from the connection; false
  /// when the reader hands over the whole `Request::body`.
  bool streaming() const noexcept { return source_ != nullptr; }

  // ---- the connection's side ----
  /// Reads from `source` from now on (null: the whole body, bound with bind_whole).
  void attach(BodySource* source) noexcept { source_ = source; }
  /// The whole body the reader gives when no source is attached.
  void bind_whole(const std::string* body) noexcept { whole_ = body; }
  /// Forgets the source and the whole body's progress, for the next request.
  void reset() noexcept {
    source_ = nullptr;
    whole_given_ = false;
  }

 private:
  Task<BodyChunk> read_whole();

  BodySource* source_ = nullptr;
  const std::string* whole_ = nullptr;
  bool whole_given_ = false;
};

}  // namespace tiffany::http
