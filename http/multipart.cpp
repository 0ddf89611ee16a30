// multipart/form-data: the boundary of a Content-Type, and whole bodies split by MultipartReader.
#include <tiffany/http/multipart.hpp>

#include <tiffany/http/headers.hpp>
#include <tiffany/http/media_type.hpp>
#include <tiffany/http/multipart_reader.hpp>
#include <tiffany/http/request.hpp>

namespace tiffany::http {
namespace {

// RFC 2046 bchars.
bool is_boundary_char(char c) noexcept {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  switch (c) {
    case '\'': case '(': case ')': case '+': case '_': case ',': case '-': case '.': case '/': case ':': case '=':
    case '?': case ' ': return true;
    default: return false;
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
  MultipartReader reader(boundary, limits);
  bool fed = false;
  for (;;) {
    switch (reader.next()) {
      case MultipartReader::Event::part:
        result.parts.push_back(reader.part());
        result.parts.back().body = reader.data();  // empty, inside `body`, until its bytes come
        break;
      case MultipartReader::Event::data: {
        // Why one view: fed whole, a part's pieces lie end to end in `body`.
        std::string_view& part_body = result.parts.back().body;
        const std::string_view piece = reader.data();
        part_body = std::string_view(part_body.data(), part_body.size() + piece.size());
        break;
      }
      case MultipartReader::Event::part_end:
        break;
      case MultipartReader::Event::need_more:
        if (fed) {
          reader.finish();
        } else {
          reader.feed(body);
          fed = true;
        }
        break;
      case MultipartReader::Event::done:
        return result;  // the epilogue is ignored
      case MultipartReader::Event::error:
        result.error = reader.error();
        result.parts.clear();
        return result;
    }
  }
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
