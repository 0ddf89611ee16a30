// redirect(): status, Location and an empty body.
#include <tiffany/http/redirect.hpp>

#include <stdexcept>
#include <string>

#include <tiffany/http/response.hpp>

namespace tiffany::http {
namespace {

bool is_hex(char c) noexcept { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

bool must_encode(char c) noexcept {
  const auto byte = static_cast<unsigned char>(c);
  if (byte <= 0x20 || byte >= 0x7f) return true;
  switch (c) {
    case '"': case '<': case '>': case '\\': case '^': case '`': case '{': case '|': case '}': return true;
    default: return false;
  }
}

}  // namespace

void append_encoded_location(std::string_view location, std::string& out) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  for (std::size_t i = 0; i < location.size(); ++i) {
    const char c = location[i];
    const bool escape = c == '%' && i + 2 < location.size() && is_hex(location[i + 1]) && is_hex(location[i + 2]);
    if (escape || (c != '%' && !must_encode(c))) {
      out += c;
    } else {
      const auto byte = static_cast<unsigned char>(c);
      out += '%';
      out += kHex[byte >> 4];
      out += kHex[byte & 0xf];
    }
  }
}

void redirect(Response& response, std::string_view location, Status status) {
  if (!is_redirect(status)) {
    throw std::invalid_argument("redirect status must be 301, 302, 303, 307 or 308, not " +
                                std::to_string(to_int(status)));
  }
  if (location.empty()) throw std::invalid_argument("redirect needs a location");
  std::string encoded;
  encoded.reserve(location.size());
  append_encoded_location(location, encoded);
  response.set_status(status);
  response.headers.set("Location", encoded);
  response.body.clear();
  response.drop_body_reference();
}

}  // namespace tiffany::http
