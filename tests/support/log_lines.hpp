// Reading error-log lines in tests (std::regex trips -Werror under ASan with g++ 12).
#pragma once

#include <algorithm>
#include <cctype>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace tiffany::testing {

/// True for "2026-11-26T10:00:00.123Z": UTC with milliseconds, 24 characters.
inline bool is_log_timestamp(std::string_view text) {
  constexpr std::string_view kShape = "dddd-dd-ddTdd:dd:dd.dddZ";
  if (text.size() != kShape.size()) return false;
  for (std::size_t i = 0; i < kShape.size(); ++i) {
    const bool ok = kShape[i] == 'd' ? std::isdigit(static_cast<unsigned char>(text[i])) != 0 : text[i] == kShape[i];
    if (!ok) return false;
  }
  return true;
}

/// What follows "<timestamp> " on each line of `log` that has one, e.g.
/// "[error] worker 0: ...". Lines without a timestamp are skipped.
inline std::vector<std::string> log_messages(const std::string& log) {
  std::vector<std::string> messages;
  std::istringstream lines(log);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.size() > 25 && is_log_timestamp(std::string_view(line).substr(0, 24)) && line[24] == ' ') {
      messages.push_back(line.substr(25));
    }
  }
  return messages;
}

/// True if one of `messages` is exactly `message`.
inline bool has_message(const std::vector<std::string>& messages, std::string_view message) {
  return std::find(messages.begin(), messages.end(), message) != messages.end();
}

}  // namespace tiffany::testing
