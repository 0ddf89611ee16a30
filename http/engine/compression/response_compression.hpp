// ResponseCompression: applies a route's compression to the responses of one connection.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <tiffany/http/request.hpp>
#include <tiffany/http/response.hpp>

#include "http/engine/compression/coding.hpp"
#include "http/engine/compression/compression_settings.hpp"
#include "http/internal/compression/encoder_pool.hpp"

namespace tiffany::http {

/// One per HTTP connection state, reused request after request. A response
/// is compressed when its route has settings, its status may carry a body
/// (2xx but 204 and 206, 4xx, 5xx), it has no Content-Encoding or
/// Content-Range, no `Cache-Control: no-transform`, a listed Content-Type,
/// and at least min_bytes (when its size is known). Such a response gets
/// `Vary: Accept-Encoding` whatever the client accepts, since another
/// client could get another answer; when a coding is chosen, also
/// Content-Encoding and an ETag with "-<coding>" before its closing quote.
///
/// Conditional requests: before the handler runs, the chosen coding's
/// suffix is removed from If-None-Match tags, so the handler compares its
/// own validators; a 304 answering such a tag gets the suffix back.
///
/// Nothing is allocated unless a response is compressed (or If-None-Match
/// is rewritten): routes without settings cost one pointer test.
class ResponseCompression {
 public:
  /// Before the handler: `settings` are the route's (nullptr: off).
  /// Why inline: it runs for every request, nearly always with nullptr.
  void begin(const CompressionSettings* settings, Request& request) {
    settings_ = settings;
    coding_ = Coding::identity;
    stripped_if_none_match_ = false;
    encoder_.reset();
    if (settings != nullptr) negotiate(request);
  }

  /// A whole response: compresses its body in place when that applies (not
  /// for HEAD, which gets the same header fields as GET). True when the
  /// response is encoded: its Content-Length is then the body's size (GET)
  /// or absent (HEAD), not a declared length.
  bool apply_whole(Response& response, bool head) { return settings_ != nullptr && compress_whole(response, head); }

  /// A streamed response's head is about to be written. True when it is
  /// encoded: no Content-Length (chunked or close-delimited instead), and
  /// each piece goes through encode_piece (unless `head`).
  bool start_stream(Response& response, bool head);
  bool streaming() const noexcept { return static_cast<bool>(encoder_); }
  /// The encoded, flushed bytes for `piece` (valid until the next call).
  std::string_view encode_piece(std::string_view piece);
  /// Ends the stream: its last bytes (valid until the next call).
  std::string_view finish_stream();
  /// Releases what the last response held (the encoder); nothing applies until the next begin().
  void end() noexcept {
    encoder_.reset();
    settings_ = nullptr;
  }
  /// Frees a large output buffer before the connection state waits for reuse.
  void trim() noexcept;

 private:
  /// begin() for a route that compresses: picks the coding, rewrites If-None-Match.
  void negotiate(Request& request);
  /// apply_whole() for a route that compresses.
  bool compress_whole(Response& response, bool head);
  /// Whether `response` is compressed at all; `size` when known.
  bool eligible(const Response& response, std::optional<std::uint64_t> size) const noexcept;
  /// Sets Vary, and for a chosen coding Content-Encoding and the ETag suffix.
  void label(Response& response) const;
  /// A 304: the encoded ETag and Vary when it answers a tag of ours.
  void label_not_modified(Response& response) const;

  const CompressionSettings* settings_ = nullptr;
  Coding coding_ = Coding::identity;
  bool stripped_if_none_match_ = false;
  PooledEncoder encoder_;
  std::string encoded_;  // whole bodies and pieces; keeps its capacity
};

}  // namespace tiffany::http
