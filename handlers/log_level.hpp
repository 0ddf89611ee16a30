// LogLevel: how severe an error-log message is, and the names the config uses.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

namespace tiffany {

/// Severity of an error-log line, least severe first (nginx's names, without
/// `alert` and `emerg`). A log at level L writes the lines at L and above.
///   debug   details for a developer (a failed TLS handshake)
///   info    normal events worth a line (a plugin loaded)
///   notice  normal but significant (start-up, listeners, drain begins, stopped)
///   warn    something odd the server handled (slow task, handler timeout, accept back-off, epoll fallback)
///   error   a request or task failed (handler exception, task failure)
///   crit    the server cannot go on as configured (a worker stopped)
enum class LogLevel : unsigned char { debug, info, notice, warn, error, crit };

/// The names in level order, as written in the config and in each line.
inline constexpr std::array<std::string_view, 6> kLogLevelNames{"debug", "info", "notice", "warn", "error", "crit"};

constexpr std::string_view log_level_name(LogLevel level) noexcept {
  return kLogLevelNames[static_cast<std::size_t>(level)];
}

/// The level named `name` (as in the config's `error_log.level`), or none.
constexpr std::optional<LogLevel> log_level_from_name(std::string_view name) noexcept {
  for (std::size_t i = 0; i < kLogLevelNames.size(); ++i) {
    if (kLogLevelNames[i] == name) return static_cast<LogLevel>(i);
  }
  return std::nullopt;
}

}  // namespace tiffany
