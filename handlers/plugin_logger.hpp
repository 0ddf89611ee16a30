// Logger: a plugin's handle on the server's error log, tagged with its name.
#pragma once

#include <string>
#include <string_view>

#include <tiffany/handlers/log_level.hpp>

namespace tiffany {

/// Where every Logger's lines go. The server points it at its error log
/// (levels, format, file) before any plugin starts; the test kit points it
/// at a recorder. Until then lines go to standard error as `[level] line`.
///
/// Thread safety: write() and enabled() are called from any thread at once.
class LogSink {
 public:
  virtual ~LogSink() = default;
  /// Would a line at `level` be written?
  virtual bool enabled(LogLevel level) const noexcept = 0;
  /// Writes one line (no newline; the sink escapes control bytes).
  virtual void write(LogLevel level, std::string_view line) noexcept = 0;
};

/// Installs `sink` (nullptr: back to standard error). The sink must outlive
/// every later log call; set it before other threads log (main, at start-up).
void set_log_sink(LogSink* sink) noexcept;
/// The sink in use (never null).
LogSink& log_sink() noexcept;

/// Writes to the server's error log with its levels and format, each line
/// tagged with the plugin and, inside a request, its route and request id:
///   2026-11-26T10:00:00.123Z [info] worker 0: plugin "kv" on route /kv/:key: stored "a", request_id: 5f0c…
/// A line below the error log's level costs one load and a compare: no
/// formatting, no allocation.
///
/// Cheap to copy (one string); any thread; lines never interleave.
class Logger {
 public:
  /// `name` tags every line: `plugin "<name>"`.
  explicit Logger(std::string name) : name_(std::move(name)) {}

  const std::string& name() const noexcept { return name_; }
  /// Would a line at `level` be written? Check it before building costly arguments.
  bool enabled(LogLevel level) const noexcept { return log_sink().enabled(level); }

  /// Writes `message` at `level` if enabled.
  void log(LogLevel level, std::string_view message) const noexcept;
  /// printf-style; formats only if enabled.
  void logf(LogLevel level, const char* format, ...) const noexcept __attribute__((format(printf, 3, 4)));

  void debug(std::string_view message) const noexcept { log(LogLevel::debug, message); }
  void info(std::string_view message) const noexcept { log(LogLevel::info, message); }
  void notice(std::string_view message) const noexcept { log(LogLevel::notice, message); }
  void warn(std::string_view message) const noexcept { log(LogLevel::warn, message); }
  void error(std::string_view message) const noexcept { log(LogLevel::error, message); }
  void crit(std::string_view message) const noexcept { log(LogLevel::crit, message); }

 private:
  std::string name_;
};

}  // namespace tiffany
