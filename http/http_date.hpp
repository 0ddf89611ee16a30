// HTTP dates (RFC 9110 IMF-fixdate): formatting, parsing, and a per-second cache.
#pragma once

#include <ctime>
#include <optional>
#include <string>
#include <string_view>

namespace tiffany::http {

/// "Sun, 06 Nov 1994 08:49:37 GMT" for `when`.
std::string format_http_date(std::time_t when);
/// Parses an HTTP-date: IMF-fixdate, or the obsolete RFC 850 and asctime
/// forms (RFC 9110 §5.6.7); nullopt if it is none of them.
std::optional<std::time_t> parse_http_date(std::string_view text);
/// The current time as an HTTP date, recomputed at most once a second per thread.
std::string_view current_http_date();

}  // namespace tiffany::http
