// HTTP status codes and their reason phrases.
#pragma once

#include <string_view>

namespace tiffany::http {

/// The reason phrase for `status` ("OK", "Not Found", ...); "Unknown" if none.
std::string_view reason_phrase(int status) noexcept;

/// Statuses whose responses never carry a body (1xx, 204, 304).
constexpr bool status_forbids_body(int status) noexcept {
  return (status >= 100 && status < 200) || status == 204 || status == 304;
}

}  // namespace tiffany::http
