// ErrorLog: the server's diagnostics, one timestamped line per event, filtered by level.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdarg>
#include <exception>
#include <string>
#include <string_view>

#include <tiffany/handlers/log_level.hpp>
#include <tiffany/reactor/unique_fd.hpp>

namespace tiffany {

struct Config;

/// Writes lines such as
///   2026-11-26T10:00:00.123Z [error] worker 1: hello failed on GET /x: boom, request_id: 5f0c…
/// UTC time with milliseconds, the level, the worker index when the calling
/// thread is a worker (see set_worker_of_this_thread), then the message, with
/// control characters escaped (`\x0a`) so one event is always one line, and
/// the request id when the line is written by a task answering a request
/// (http::kRequestId in its task context).
///
/// Each line is written with one write(2), unbuffered: errors are rare, and
/// lines from different threads never interleave on an O_APPEND file or a
/// pipe. A message below the level is neither formatted nor written.
///
/// Thread safety: log() and enabled() may be called from any thread at once;
/// reset() only while no other thread logs (main, before the workers start).
class ErrorLog {
 public:
  /// Standard error, level info.
  ErrorLog() = default;
  /// Writes to `fd` (standard error if invalid) from `level` up.
  ErrorLog(UniqueFd fd, LogLevel level);
  ErrorLog(const ErrorLog&) = delete;
  ErrorLog& operator=(const ErrorLog&) = delete;

  /// Would a message at `level` be written? Check this first when building
  /// the arguments is itself costly.
  bool enabled(LogLevel level) const noexcept { return level >= level_.load(std::memory_order_relaxed); }

  /// Formats (printf-style) and writes one line if `level` is enabled.
  void log(LogLevel level, const char* format, ...) const noexcept __attribute__((format(printf, 3, 4)));

  /// Replaces the destination and level; closes the previous file, if any.
  void reset(UniqueFd fd, LogLevel level) noexcept;
  LogLevel level() const noexcept { return level_.load(std::memory_order_relaxed); }
  /// True when lines go to standard error (no file of their own).
  bool to_stderr() const noexcept { return !file_; }
  /// The file's descriptor, or -1 for standard error. Reopening puts a new
  /// file in its place with dup3 (log_reopen.hpp), so writers never see it closed.
  int file_descriptor() const noexcept { return file_ ? file_.get() : -1; }

  /// Marks the calling thread as worker `index` (negative: not a worker);
  /// its lines then say "worker N: ".
  static void set_worker_of_this_thread(int index) noexcept;

  /// One complete line, newline included (exposed for tests).
  static std::string format_line(std::chrono::system_clock::time_point when, LogLevel level, int worker,
                                 std::string_view message, std::string_view request_id = {});

 private:
  void write_line(LogLevel level, const char* format, va_list args) const noexcept;

  UniqueFd file_;  // invalid: standard error
  std::atomic<LogLevel> level_{LogLevel::info};
};

/// The process's error log: standard error at level info until main applies
/// the config with open_error_log().
ErrorLog& error_log() noexcept;

/// Points error_log() at `config.error_log` (opening the file, O_APPEND);
/// throws ConfigError naming `error_log.path` if the file cannot be opened.
/// Main thread, before the workers start.
void open_error_log(const Config& config);

}  // namespace tiffany
