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

/// Where a stream's response stands, changed only by
/// Http2Stream::enter_output, checked against may_follow():
///   none      -> whole | streaming
///   streaming -> ended
/// whole and ended are where a response ends. A reset is a fact beside it
/// (Http2Stream's reset_): it may come in any phase.
enum class OutputPhase : std::uint8_t {
  none,       ///< nothing went to the session yet
  whole,      ///< a whole response went (its body, if any, read from the Response)
  streaming,  ///< its head went; the body's pieces follow as the handler writes them
  ended,      ///< the streamed body's end is queued
};

constexpr bool may_follow(OutputPhase from, OutputPhase to) noexcept {
  if (from == OutputPhase::none) return to == OutputPhase::whole || to == OutputPhase::streaming;
  return from == OutputPhase::streaming && to == OutputPhase::ended;
}

constexpr const char* name(OutputPhase phase) noexcept {
  constexpr const char* kNames[] = {"none", "whole", "streaming", "ended"};
  return kNames[static_cast<std::uint8_t>(phase)];
}

}  // namespace tiffany::http2
