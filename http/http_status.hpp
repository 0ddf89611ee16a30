// HTTP status codes and their reason phrases.
#pragma once

#include <string_view>

namespace tiffany::http {

/// The status codes a handler usually sets, by name (RFC 9110 §15):
/// `response.set_status(Status::not_found)`. Any other code still works
/// through `response.status = 499`.
enum class Status : int {
  continue_ = 100,
  switching_protocols = 101,
  ok = 200,
  created = 201,
  accepted = 202,
  no_content = 204,
  partial_content = 206,
  moved_permanently = 301,
  found = 302,
  see_other = 303,
  not_modified = 304,
  temporary_redirect = 307,
  permanent_redirect = 308,
  bad_request = 400,
  unauthorized = 401,
  forbidden = 403,
  not_found = 404,
  method_not_allowed = 405,
  not_acceptable = 406,
  request_timeout = 408,
  conflict = 409,
  gone = 410,
  length_required = 411,
  precondition_failed = 412,
  content_too_large = 413,
  uri_too_long = 414,
  unsupported_media_type = 415,
  range_not_satisfiable = 416,
  expectation_failed = 417,
  unprocessable_content = 422,
  upgrade_required = 426,
  too_many_requests = 429,
  request_header_fields_too_large = 431,
  internal_server_error = 500,
  not_implemented = 501,
  bad_gateway = 502,
  service_unavailable = 503,
  gateway_timeout = 504,
};

/// The number of `status` (`to_int(Status::not_found)` is 404).
constexpr int to_int(Status status) noexcept { return static_cast<int>(status); }

/// True for the statuses a redirect may use: 301, 302, 303, 307, 308.
constexpr bool is_redirect(Status status) noexcept {
  switch (status) {
    case Status::moved_permanently:
    case Status::found:
    case Status::see_other:
    case Status::temporary_redirect:
    case Status::permanent_redirect: return true;
    default: return false;
  }
}

/// The reason phrase for `status` ("OK", "Not Found", ...); "Unknown" if none.
std::string_view reason_phrase(int status) noexcept;
inline std::string_view reason_phrase(Status status) noexcept { return reason_phrase(to_int(status)); }

/// Statuses whose responses never carry a body (1xx, 204, 304).
constexpr bool status_forbids_body(int status) noexcept {
  return (status >= 100 && status < 200) || status == 204 || status == 304;
}

}  // namespace tiffany::http
