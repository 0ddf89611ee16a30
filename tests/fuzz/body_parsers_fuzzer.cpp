// libFuzzer target for the request body and header conveniences: the input's
// first line is a Content-Type, the rest a body. Multipart (boundary from the
// Content-Type, tight limits), urlencoded forms, cookies and JSON must never
// crash, and every part must be a view inside the body. The streaming
// multipart reader, fed the body in pieces cut by the body's own bytes, must
// give exactly the parts and the error of the whole-body parse.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include <tiffany/http/cookies.hpp>
#include <tiffany/http/form_fields.hpp>
#include <tiffany/http/json_body.hpp>
#include <tiffany/http/media_type.hpp>
#include <tiffany/http/multipart.hpp>
#include <tiffany/http/multipart_reader.hpp>

namespace {

using namespace tiffany::http;

// The body streamed through MultipartReader in pieces whose sizes come from
// the body's bytes (1 to 16), each piece a fresh copy freed after it is used.
void check_streaming_matches(std::string_view body, const std::string& boundary, const MultipartLimits& limits,
                             const MultipartResult& whole) {
  MultipartReader reader(boundary, limits);
  std::vector<std::string> bodies;
  std::string piece;
  std::size_t offset = 0;
  for (;;) {
    switch (reader.next()) {
      case MultipartReader::Event::part:
        if (reader.part().headers.size() > limits.max_part_headers) std::abort();
        bodies.emplace_back();
        break;
      case MultipartReader::Event::data:
        if (bodies.empty() || reader.data().empty()) std::abort();
        bodies.back() += reader.data();
        break;
      case MultipartReader::Event::part_end:
        break;
      case MultipartReader::Event::need_more:
        if (reader.held_bytes() > limits.max_part_header_bytes + boundary.size() + 4 + MultipartReader::kMaxPadding + 2) {
          std::abort();  // bounded, whatever the pieces
        }
        if (offset >= body.size()) {
          reader.finish();
        } else {
          const std::size_t size = 1 + static_cast<unsigned char>(body[offset]) % 16;
          piece.assign(body.substr(offset, size));
          offset += piece.size();
          reader.feed(piece);
        }
        break;
      case MultipartReader::Event::done:
        if (!whole.ok() || bodies.size() != whole.parts.size()) std::abort();
        for (std::size_t i = 0; i < bodies.size(); ++i) {
          if (bodies[i] != whole.parts[i].body) std::abort();
        }
        return;
      case MultipartReader::Event::error:
        if (reader.error() != whole.error) std::abort();
        return;
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::size_t eol = input.find('\n');
  const std::string_view content_type = input.substr(0, eol);
  const std::string_view body = eol == std::string_view::npos ? std::string_view{} : input.substr(eol + 1);

  const std::string boundary = multipart_boundary(content_type).value_or("b");
  const MultipartLimits limits{.max_parts = 64, .max_part_header_bytes = 512, .max_part_headers = 8};
  const MultipartResult result = parse_multipart(body, boundary, limits);
  check_streaming_matches(body, boundary, limits, result);
  if (result.ok() == !result.error.empty()) std::abort();
  if (!result.ok() && !result.parts.empty()) std::abort();  // an error leaves no half-parsed parts
  if (result.parts.size() > 64) std::abort();
  for (const MultipartPart& part : result.parts) {
    if (part.body.data() < body.data() || part.body.data() + part.body.size() > body.data() + body.size()) std::abort();
    if (part.headers.size() > 8) std::abort();
  }

  (void)media_type_param(content_type, "charset");
  (void)media_type_is(content_type, "application/json");
  if (const auto form = FormFields::parse(body)) {
    for (const auto& [name, value] : *form) {
      if (name.find('\0') != std::string::npos || value.find('\0') != std::string::npos) std::abort();
    }
  }
  for (const auto& [name, value] : parse_cookies(content_type)) {
    if (name.empty()) std::abort();
    (void)value;
  }
  std::string error;
  if (!parse_json(body, error) && error.empty()) std::abort();
  return 0;
}
