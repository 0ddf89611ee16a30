// StreamPhase: where a stream is on our side, and which changes of it are allowed.
#pragma once

#include <cstdint>

namespace tiffany::http2 {

/// A stream's life on our side, from its HEADERS to its task's end. It
/// changes only through Http2Connection::enter, which checks each change
/// against may_follow() (h2o's h2o_http2_stream_set_state does the same).
/// What the client did (END_STREAM, a reset) and what nghttp2 did (the
/// close) are facts beside it, not phases: they happen in any phase.
enum class StreamPhase : std::uint8_t {
  headers,    ///< its header block is arriving
  uploading,  ///< a whole body is arriving; its task starts at END_STREAM
  running,    ///< its task runs (the body whole, or read as it arrives)
  refused,    ///< the connection answered it itself (a limit, a bad head): no task runs
  finished,   ///< its task ended (answered, reset, or canceled)
};

/// True when a stream in `from` may go to `to`:
///   headers   -> uploading | running | refused
///   uploading -> running | refused
///   running   -> finished
/// refused and finished are where a stream ends (until reuse makes it anew).
constexpr bool may_follow(StreamPhase from, StreamPhase to) noexcept {
  switch (from) {
    case StreamPhase::headers:
      return to == StreamPhase::uploading || to == StreamPhase::running || to == StreamPhase::refused;
    case StreamPhase::uploading:
      return to == StreamPhase::running || to == StreamPhase::refused;
    case StreamPhase::running:
      return to == StreamPhase::finished;
    case StreamPhase::refused:
    case StreamPhase::finished:
      return false;
  }
  return false;
}

/// The phase's name in log lines (report_state_bug).
constexpr const char* name(StreamPhase phase) noexcept {
  constexpr const char* kNames[] = {"headers", "uploading", "running", "refused", "finished"};
  return kNames[static_cast<std::uint8_t>(phase)];
}

}  // namespace tiffany::http2
