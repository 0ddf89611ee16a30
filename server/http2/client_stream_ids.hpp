// ClientStreamIds: which of the client's stream ids a header block may still use (RFC 9113 §5.1, §5.1.1).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tiffany::http2 {

/// Judges a HEADERS frame on a stream nghttp2 no longer (or never) held.
/// nghttp2 ignores such a header block: it keeps no closed streams (none
/// at all with RFC 7540 priorities off), and cannot tell a stream that
/// closed from one that was never opened. What must be kept is small: the
/// highest id the client used (every id at or below it that no stream
/// holds is closed, §5.1.1), whether it skipped one, and the streams we
/// reset lately, whose frames the client may have sent before it saw our
/// RST_STREAM (§5.1: those are ignored; we ignore them for the last
/// kRememberedResets resets, as §5.1 lets us limit the period).
///
/// Single-threaded: its connection's.
class ClientStreamIds {
 public:
  static constexpr std::size_t kRememberedResets = 128;

  enum class Verdict {
    go_on,           ///< a new stream, an open one, or one we reset: nghttp2 carries on
    protocol_error,  ///< an id going back below one the client used (§5.1.1): GOAWAY PROTOCOL_ERROR
    stream_closed,   ///< a stream that closed (§5.1): GOAWAY STREAM_CLOSED
  };

  /// A HEADERS frame begins on `id`; `open`: nghttp2 holds the stream.
  Verdict headers_begin(std::int32_t id, bool open) noexcept;
  /// We reset `id` (or are about to: the RST_STREAM is queued).
  void reset_sent(std::int32_t id);

 private:
  bool reset_lately(std::int32_t id) const noexcept;

  std::int32_t highest_ = -1;  // the highest odd id a HEADERS frame named; -1 before any
  bool skipped_ = false;       // some odd id below highest_ was never opened
  // Why grown on first use, as a ring: most connections reset nothing, and
  // an idle connection should hold no more than it needs.
  std::vector<std::int32_t> resets_;
  std::size_t next_reset_ = 0;  // where the next reset goes once the ring is full
};

}  // namespace tiffany::http2
