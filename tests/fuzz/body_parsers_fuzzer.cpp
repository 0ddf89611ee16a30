// libFuzzer target for the request body and header conveniences: the input's
// first line is a Content-Type, the rest a body. Multipart (boundary from the
// Content-Type, tight limits), urlencoded forms, cookies and JSON must never
// crash, and every part must be a view inside the body.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include <tiffany/http/cookies.hpp>
#include <tiffany/http/form_fields.hpp>
#include <tiffany/http/json_body.hpp>
#include <tiffany/http/media_type.hpp>
#include <tiffany/http/multipart.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tiffany::http;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::size_t eol = input.find('\n');
  const std::string_view content_type = input.substr(0, eol);
  const std::string_view body = eol == std::string_view::npos ? std::string_view{} : input.substr(eol + 1);

  const std::string boundary = multipart_boundary(content_type).value_or("b");
  const MultipartResult result = parse_multipart(body, boundary, MultipartLimits{.max_parts = 64,
                                                                                 .max_part_header_bytes = 512,
                                                                                 .max_part_headers = 8});
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
