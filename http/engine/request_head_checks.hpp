// The checks of a request's head that HTTP/1.1 and HTTP/2 make alike.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include <tiffany/http/headers.hpp>
#include <tiffany/http/request.hpp>

namespace tiffany::http {

/// Why a head is refused: the status and a short reason (a string literal).
struct HeadRefusal {
  int status = 0;  ///< 0: the head passes
  const char* reason = "";
  explicit operator bool() const noexcept { return status != 0; }
};

/// Which request-target forms a protocol carries: HTTP/1.1 also the
/// absolute-form ("http://host/path", RFC 9112 §3.2.2); HTTP/2's :path only
/// the origin- and asterisk-forms (RFC 9113 §8.3.1).
enum class TargetForms : std::uint8_t { origin_and_asterisk, with_absolute };

/// request.target into request.path (normalized: dot segments resolved,
/// percent-encoding checked) and request.query (its fragment dropped). The
/// asterisk-form is OPTIONS's alone; CONNECT's authority-form is a method an
/// origin server does not implement (501); anything else malformed is 400.
HeadRefusal take_request_target(Request& request, TargetForms forms);

/// A declared body longer than `max_body_bytes` (413: refused before the
/// client sends it), or an expectation other than 100-continue (417).
/// Inline: every request of both protocols asks.
inline HeadRefusal check_declared_body(std::optional<std::uint64_t> content_length, std::uint64_t max_body_bytes) {
  if (content_length && *content_length > max_body_bytes) return {413, "body larger than the limit"};
  return {};
}
inline HeadRefusal check_expectation(std::optional<std::string_view> expect) {
  if (expect && !iequals(*expect, "100-continue")) return {417, "unsupported expectation"};
  return {};
}

}  // namespace tiffany::http
