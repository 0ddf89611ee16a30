// HTTP dates: strftime/strptime in GMT plus a thread-local cache for Date headers.
#include "server/http/http_date.hpp"

#include <time.h>

#include <cstring>

namespace tiffany::http {

std::string format_http_date(std::time_t when) {
  std::tm parts{};
  gmtime_r(&when, &parts);
  char text[32];
  const std::size_t length = std::strftime(text, sizeof text, "%a, %d %b %Y %H:%M:%S GMT", &parts);
  return std::string(text, length);
}

std::optional<std::time_t> parse_http_date(std::string_view text) {
  if (text.size() != 29) return std::nullopt;
  const std::string copy(text);
  std::tm parts{};
  const char* end = strptime(copy.c_str(), "%a, %d %b %Y %H:%M:%S GMT", &parts);
  if (end == nullptr || *end != '\0') return std::nullopt;
  return timegm(&parts);
}

std::string_view current_http_date() {
  thread_local std::time_t cached_second = 0;
  thread_local char cached[32] = {0};
  thread_local std::size_t cached_length = 0;
  timespec now{};
  clock_gettime(CLOCK_REALTIME_COARSE, &now);
  if (now.tv_sec != cached_second) {
    cached_second = now.tv_sec;
    const std::string text = format_http_date(now.tv_sec);
    std::memcpy(cached, text.data(), text.size());
    cached_length = text.size();
  }
  return std::string_view(cached, cached_length);
}

}  // namespace tiffany::http
