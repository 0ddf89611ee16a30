// RequestWriter: the outbound client's request head and chunk encoder, refusing
// any field, method or target that would inject a line into the request.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <tiffany/http/headers.hpp>

namespace tiffany::http {

/// How the request body is delimited; the caller decides, the writer writes the field.
enum class RequestFraming {
  none,            ///< no body, no framing field
  content_length,  ///< `Content-Length: N`, then exactly N bytes
  chunked,         ///< `Transfer-Encoding: chunked`, then chunks (append_chunk) and kLastChunk
};

/// What a request head holds. Views: they need live only during write_request_head.
struct OutboundRequest {
  std::string_view method = "GET";
  std::string_view target = "/";     ///< origin-form, absolute-form, or "*"
  std::string_view host;             ///< the Host field, written first (RFC 9112 §3.2)
  const Headers* headers = nullptr;  ///< other fields, in order; never Host, Content-Length or Transfer-Encoding
  RequestFraming framing = RequestFraming::none;
  std::uint64_t content_length = 0;  ///< with RequestFraming::content_length
};

/// Appends the request line, Host, the fields, the framing field and the
/// blank line to `out`. On bad input appends nothing, sets `error` (what is
/// wrong, naming the field) and returns false.
[[nodiscard]] bool write_request_head(const OutboundRequest& request, std::string& out, std::string& error);

/// A chunk-size line ("1a2b\r\n") in a small buffer, to send before the
/// chunk's bytes without copying them (gathered writes).
struct ChunkHead {
  char bytes[24];
  std::size_t size = 0;
  std::string_view view() const noexcept { return {bytes, size}; }
};
/// The head of a chunk of `size` bytes; `size` must not be 0 (that chunk ends the body).
ChunkHead chunk_head(std::uint64_t size) noexcept;
/// What follows each chunk's bytes.
inline constexpr std::string_view kChunkTail = "\r\n";
/// Ends a chunked body (no trailers).
inline constexpr std::string_view kLastChunk = "0\r\n\r\n";

/// Appends `data` as one chunk (head, bytes, tail); nothing for empty data,
/// since an empty chunk would end the body.
void append_chunk(std::string& out, std::string_view data);

}  // namespace tiffany::http
