// multipart/form-data (RFC 7578, RFC 2046 §5.1): splitting a whole body into its parts.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <tiffany/http/headers.hpp>

namespace tiffany::http {

struct Request;

/// One part of a multipart body.
struct MultipartPart {
  Headers headers;                      ///< the part's own header fields
  std::string name;                     ///< Content-Disposition `name` ("" if none)
  std::optional<std::string> filename;  ///< Content-Disposition `filename`, if any (not a safe path: never use as one)
  std::string content_type;             ///< the part's Content-Type, "text/plain" if none (RFC 7578 §4.4)
  std::string_view body;                ///< the part's bytes: a view into the parsed body
};

/// Bounds on what one body may make the parser hold.
struct MultipartLimits {
  std::size_t max_parts = 1000;
  std::size_t max_part_header_bytes = 8192;  ///< one part's header section
  std::size_t max_part_headers = 32;         ///< fields in one part's header section
};

/// The parts, or why the body is not valid multipart (`error` not empty).
struct MultipartResult {
  std::vector<MultipartPart> parts;
  std::string error;
  bool ok() const noexcept { return error.empty(); }
};

/// The boundary of a `multipart/...` Content-Type (1 to 70 characters, RFC
/// 2046 §5.1.1), or nullopt if it has none or an invalid one.
std::optional<std::string> multipart_boundary(std::string_view content_type);

/// Splits `body` at `boundary`. Strict: CRLF line ends, a closing delimiter
/// required; the preamble and epilogue are ignored. Part bodies are views
/// into `body`, which must outlive the result. Time and memory are linear
/// in the body's size (bodies are already bounded by max_body_bytes).
MultipartResult parse_multipart(std::string_view body, std::string_view boundary, const MultipartLimits& limits = {});

/// parse_multipart of a request whose Content-Type is multipart/form-data;
/// an error when it is not (or has no boundary). Views into `request.body`.
MultipartResult parse_multipart(const Request& request, const MultipartLimits& limits = {});

}  // namespace tiffany::http
