// HTTP dates: strftime/strptime in GMT plus a thread-local cache for Date headers (read from wall_now).
#include <tiffany/http/http_date.hpp>

#include <time.h>

#include <cstring>

#include <tiffany/coro/wall_clock.hpp>

namespace tiffany::http {

std::string format_http_date(std::time_t when) {
  std::tm parts{};
  gmtime_r(&when, &parts);
  char text[32];
  const std::size_t length = std::strftime(text, sizeof text, "%a, %d %b %Y %H:%M:%S GMT", &parts);
  return std::string(text, length);
}

std::optional<std::time_t> parse_http_date(std::string_view text) {
  // RFC 9110 §5.6.7: a recipient MUST accept all three formats: IMF-fixdate
  // (29 bytes), the obsolete RFC 850 form ("Sunday, 06-Nov-94 08:49:37 GMT")
  // and asctime ("Sun Nov  6 08:49:37 1994", 24 bytes).
  if (text.size() < 24 || text.size() > 40) return std::nullopt;
  const std::string copy(text);
  const char* format = "%a, %d %b %Y %H:%M:%S GMT";
  if (text.size() == 24) {
    format = "%a %b %e %H:%M:%S %Y";
  } else if (text.find('-') != std::string_view::npos) {
    format = "%A, %d-%b-%y %H:%M:%S GMT";
  } else if (text.size() != 29) {
    return std::nullopt;
  }
  std::tm parts{};
  const char* end = strptime(copy.c_str(), format, &parts);
  if (end == nullptr || *end != '\0') return std::nullopt;
  return timegm(&parts);
}

std::string_view current_http_date() {
  thread_local std::time_t cached_second = 0;
  thread_local char cached[32] = {0};
  thread_local std::size_t cached_length = 0;
  const std::timespec now = wall_now();
  if (now.tv_sec != cached_second) {
    cached_second = now.tv_sec;
    const std::string text = format_http_date(now.tv_sec);
    std::memcpy(cached, text.data(), text.size());
    cached_length = text.size();
  }
  return std::string_view(cached, cached_length);
}

}  // namespace tiffany::http
