// multipart/form-data: delimiters, part headers, Content-Disposition.
#include <tiffany/http/multipart.hpp>

#include <tiffany/http/headers.hpp>
#include <tiffany/http/media_type.hpp>
#include <tiffany/http/request.hpp>

namespace tiffany::http {
namespace {

constexpr std::string_view kCrlf = "\r\n";

// RFC 2046 bchars.
bool is_boundary_char(char c) noexcept {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  switch (c) {
    case '\'': case '(': case ')': case '+': case '_': case ',': case '-': case '.': case '/': case ':': case '=':
    case '?': case ' ': return true;
    default: return false;
  }
}

// After a delimiter: "--" (the close), or optional whitespace then CRLF.
// Returns the offset past it, or npos (then it was not a delimiter: the
// boundary text is only the start of a longer line); sets `closing`.
std::size_t after_delimiter(std::string_view body, std::size_t at, bool& closing) {
  closing = body.substr(at, 2) == "--";
  if (closing) return at + 2;
  while (at < body.size() && (body[at] == ' ' || body[at] == '\t')) ++at;
  if (body.substr(at, 2) != kCrlf) return std::string_view::npos;
  return at + 2;
}

// The next delimiter `inner` (CRLF "--" boundary) at or after `from` that
// really is one; returns its offset (npos if none) and sets `next` to where
// the following part's headers start and `closing`.
std::size_t find_delimiter(std::string_view body, std::string_view inner, std::size_t from, std::size_t& next,
                           bool& closing) {
  for (std::size_t at = body.find(inner, from); at != std::string_view::npos; at = body.find(inner, at + 1)) {
    next = after_delimiter(body, at + inner.size(), closing);
    if (next != std::string_view::npos) return at;
  }
  return std::string_view::npos;
}

// Reads the header section starting at `at` into `part`; returns the offset
// of the part's body, or npos with `error` set.
std::size_t read_part_headers(std::string_view body, std::size_t at, const MultipartLimits& limits,
                              MultipartPart& part, std::string& error) {
  const std::size_t start = at;
  for (;;) {
    const std::size_t eol = body.find(kCrlf, at);
    if (eol == std::string_view::npos) {
      error = "a part's header section does not end";
      return std::string_view::npos;
    }
    if (eol + 2 - start > limits.max_part_header_bytes) {
      error = "a part's header section is over " + std::to_string(limits.max_part_header_bytes) + " bytes";
      return std::string_view::npos;
    }
    if (eol == at) return eol + 2;  // the empty line
    const std::string_view line = body.substr(at, eol - at);
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos || !is_valid_field_name(line.substr(0, colon))) {
      error = "a part's header line is not a field";
      return std::string_view::npos;
    }
    const std::string_view value = trim_ows(line.substr(colon + 1));
    if (find_invalid_field_value_byte(value) != std::string_view::npos) {
      error = "a part's header value holds a control byte";
      return std::string_view::npos;
    }
    if (part.headers.size() >= limits.max_part_headers) {
      error = "a part has over " + std::to_string(limits.max_part_headers) + " header fields";
      return std::string_view::npos;
    }
    part.headers.add(line.substr(0, colon), value);
    at = eol + 2;
  }
}

}  // namespace

std::optional<std::string> multipart_boundary(std::string_view content_type) {
  const std::string_view media = trim_ows(content_type.substr(0, content_type.find(';')));
  if (media.size() < 10 || !iequals(media.substr(0, 10), "multipart/")) return std::nullopt;
  std::optional<std::string> boundary = media_type_param(content_type, "boundary");
  if (!boundary || boundary->empty() || boundary->size() > 70 || boundary->back() == ' ') return std::nullopt;
  for (const char c : *boundary) {
    if (!is_boundary_char(c)) return std::nullopt;
  }
  return boundary;
}

MultipartResult parse_multipart(std::string_view body, std::string_view boundary, const MultipartLimits& limits) {
  MultipartResult result;
  if (boundary.empty()) {
    result.error = "no multipart boundary in the body";
    return result;
  }
  const std::string inner = "\r\n--" + std::string(boundary);  // CRLF, then the delimiter
  // The first delimiter opens the body or follows the preamble's CRLF.
  std::size_t at = 0;
  bool closing = false;
  if (body.substr(0, inner.size() - 2) == std::string_view(inner).substr(2)) {
    at = after_delimiter(body, inner.size() - 2, closing);
  } else {
    at = std::string_view::npos;
  }
  if (at == std::string_view::npos && find_delimiter(body, inner, 0, at, closing) == std::string_view::npos) {
    result.error = "no multipart boundary in the body";
    return result;
  }
  while (!closing) {
    if (result.parts.size() >= limits.max_parts) {
      result.error = "over " + std::to_string(limits.max_parts) + " parts";
      break;
    }
    MultipartPart& part = result.parts.emplace_back();
    at = read_part_headers(body, at, limits, part, result.error);
    if (at == std::string_view::npos) break;
    std::size_t next = 0;
    const std::size_t end = find_delimiter(body, inner, at, next, closing);
    if (end == std::string_view::npos) {
      result.error = "the multipart body ends before its closing boundary";
      break;
    }
    part.body = body.substr(at, end - at);
    part.content_type = std::string(part.headers.get("Content-Type").value_or("text/plain"));
    if (const auto disposition = part.headers.get("Content-Disposition")) {
      // Why a media-type reader: the parameters are written like a Content-Type's.
      if (auto name = media_type_param(*disposition, "name")) part.name = std::move(*name);
      part.filename = media_type_param(*disposition, "filename");
    }
    at = next;
  }
  if (!result.ok()) result.parts.clear();
  return result;  // the epilogue is ignored
}

MultipartResult parse_multipart(const Request& request, const MultipartLimits& limits) {
  const auto type = request.headers.get("Content-Type");
  if (!type || !media_type_is(*type, "multipart/form-data")) {
    MultipartResult result;
    result.error = "expected Content-Type multipart/form-data";
    return result;
  }
  const std::optional<std::string> boundary = multipart_boundary(*type);
  if (!boundary) {
    MultipartResult result;
    result.error = "multipart/form-data without a valid boundary";
    return result;
  }
  return parse_multipart(request.body, *boundary, limits);
}

}  // namespace tiffany::http
