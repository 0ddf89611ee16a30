// Cookies: Cookie parsing and Set-Cookie serialisation.
#include <tiffany/http/cookies.hpp>

#include <stdexcept>

#include <tiffany/http/headers.hpp>
#include <tiffany/http/response.hpp>

namespace tiffany::http {
namespace {

// RFC 6265 §4.1.1 cookie-octet.
bool is_cookie_octet(char c) noexcept {
  const auto byte = static_cast<unsigned char>(c);
  return byte == 0x21 || (byte >= 0x23 && byte <= 0x2b) || (byte >= 0x2d && byte <= 0x3a) ||
         (byte >= 0x3c && byte <= 0x5b) || (byte >= 0x5d && byte <= 0x7e);
}

// An attribute value may hold any CHAR but controls and ';'.
void check_attribute(std::string_view attribute, std::string_view value) {
  for (const char c : value) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f || c == ';') {
      throw std::invalid_argument("Set-Cookie " + std::string(attribute) + " holds a control byte or ';'");
    }
  }
}

}  // namespace

std::vector<std::pair<std::string_view, std::string_view>> parse_cookies(std::string_view field) {
  std::vector<std::pair<std::string_view, std::string_view>> cookies;
  while (!field.empty()) {
    const auto semi = field.find(';');
    const std::string_view piece = trim_ows(field.substr(0, semi));
    field = semi == std::string_view::npos ? std::string_view{} : field.substr(semi + 1);
    const auto eq = piece.find('=');
    if (eq == std::string_view::npos) continue;
    const std::string_view name = trim_ows(piece.substr(0, eq));
    std::string_view value = trim_ows(piece.substr(eq + 1));
    if (name.empty()) continue;
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"') value = value.substr(1, value.size() - 2);
    cookies.emplace_back(name, value);
  }
  return cookies;
}

std::optional<std::string_view> find_cookie(const Headers& headers, std::string_view name) noexcept {
  for (const Headers::Field& field : headers) {
    if (!iequals(field.name, "Cookie")) continue;
    std::string_view rest = field.value;
    while (!rest.empty()) {  // like parse_cookies, without allocating
      const auto semi = rest.find(';');
      const std::string_view piece = trim_ows(rest.substr(0, semi));
      rest = semi == std::string_view::npos ? std::string_view{} : rest.substr(semi + 1);
      const auto eq = piece.find('=');
      if (eq == std::string_view::npos || trim_ows(piece.substr(0, eq)) != name) continue;
      std::string_view value = trim_ows(piece.substr(eq + 1));
      if (value.size() >= 2 && value.front() == '"' && value.back() == '"') value = value.substr(1, value.size() - 2);
      return value;
    }
  }
  return std::nullopt;
}

std::string SetCookie::serialize() const {
  if (!is_valid_field_name(name)) throw std::invalid_argument("Set-Cookie name \"" + name + "\" is not a token");
  for (const char c : value) {
    if (!is_cookie_octet(c)) {
      throw std::invalid_argument("Set-Cookie value of \"" + name +
                                  "\" holds a byte a cookie may not (percent-encode it first)");
    }
  }
  std::string out = name + "=" + value;
  if (path) {
    check_attribute("Path", *path);
    out += "; Path=" + *path;
  }
  if (domain) {
    check_attribute("Domain", *domain);
    out += "; Domain=" + *domain;
  }
  if (max_age) out += "; Max-Age=" + std::to_string(*max_age < 0 ? 0 : *max_age);
  if (expires) {
    check_attribute("Expires", *expires);
    out += "; Expires=" + *expires;
  }
  if (secure) out += "; Secure";
  if (http_only) out += "; HttpOnly";
  switch (same_site) {
    case SameSite::unset: break;
    case SameSite::strict: out += "; SameSite=Strict"; break;
    case SameSite::lax: out += "; SameSite=Lax"; break;
    case SameSite::none: out += "; SameSite=None"; break;
  }
  return out;
}

void set_cookie(Response& response, const SetCookie& cookie) { response.headers.add("Set-Cookie", cookie.serialize()); }

}  // namespace tiffany::http
