// Cookies: reading a request's Cookie header, building Set-Cookie (RFC 6265).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tiffany::http {

class Headers;
class Response;

/// The cookies of one Cookie field value (`a=1; b=2`), in order, as views
/// into `field`; a double-quoted value loses its quotes. Pieces without '='
/// or with an empty name are skipped; nothing is decoded.
std::vector<std::pair<std::string_view, std::string_view>> parse_cookies(std::string_view field);

/// The value of cookie `name` in any of `headers`' Cookie fields (the
/// first found), as a view into `headers`.
std::optional<std::string_view> find_cookie(const Headers& headers, std::string_view name) noexcept;

/// A Set-Cookie field under construction:
///   SetCookie cookie("session", token);
///   cookie.path = "/"; cookie.max_age = 3600; cookie.http_only = true;
///   set_cookie(response, cookie);
struct SetCookie {
  enum class SameSite { unset, strict, lax, none };

  SetCookie(std::string cookie_name, std::string cookie_value)
      : name(std::move(cookie_name)), value(std::move(cookie_value)) {}

  std::string name;   ///< a token
  std::string value;  ///< cookie-octets: no control, space, '"', ',', ';' or '\\' (percent-encode them first)
  std::optional<std::string> path;
  std::optional<std::string> domain;
  std::optional<std::int64_t> max_age;  ///< seconds; 0 or less deletes the cookie
  std::optional<std::string> expires;   ///< an HTTP-date (see http_date.hpp)
  bool secure = false;
  bool http_only = false;
  SameSite same_site = SameSite::unset;  ///< `none` needs `secure` (browsers drop it otherwise)

  /// The field value: `name=value; Path=/; Max-Age=3600; HttpOnly`. Throws
  /// std::invalid_argument naming the attribute that would break the field
  /// (a name that is not a token, a value or attribute with a forbidden byte).
  std::string serialize() const;
};

/// Adds `cookie` as a Set-Cookie field of `response` (one field per cookie).
/// Throws std::invalid_argument like SetCookie::serialize.
void set_cookie(Response& response, const SetCookie& cookie);

}  // namespace tiffany::http
