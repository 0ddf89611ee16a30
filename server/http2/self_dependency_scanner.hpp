// SelfDependencyScanner: finds PRIORITY frames that make a stream depend on itself in the client's bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace tiffany::http2 {

/// Follows the frames of a client's byte stream (from its preface on) to
/// find each PRIORITY frame whose stream depends on itself, a stream error
/// PROTOCOL_ERROR (RFC 9113 §5.3.1). Why here: with RFC 7540 priorities
/// off, nghttp2 reads past PRIORITY frames without a callback that shows
/// their payload. It reads frame headers only, and skips every payload but
/// a PRIORITY frame's five bytes, so it costs a few operations a frame.
/// Frames may be cut anywhere between calls.
///
/// Single-threaded: its connection's.
class SelfDependencyScanner {
 public:
  static constexpr std::size_t kPrefaceSize = 24;

  /// Scans `bytes`, the next input. Returns how many of them end with a
  /// self-dependent PRIORITY frame, and its stream in `stream`; or
  /// bytes.size(), `stream` left 0, when none ends in them.
  std::size_t scan(std::string_view bytes, std::int32_t& stream) noexcept;

 private:
  static constexpr std::size_t kHeaderSize = 9;
  static constexpr std::size_t kPrioritySize = 5;

  std::size_t preface_left_ = kPrefaceSize;
  unsigned char header_[kHeaderSize] = {};
  std::size_t header_have_ = 0;
  bool in_payload_ = false;
  std::size_t payload_left_ = 0;
  bool priority_ = false;                   // the payload is a PRIORITY frame's: its bytes are kept
  unsigned char dependency_[kPrioritySize] = {};
  std::size_t dependency_have_ = 0;
  std::int32_t frame_stream_ = 0;
};

}  // namespace tiffany::http2
