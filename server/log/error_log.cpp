// ErrorLog: line formatting, the one-write(2)-per-line output, the process's log.
#include "server/log/error_log.hpp"

#include <tiffany/http/request_context.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <optional>

#include "conf/config.hpp"
#include "conf/config_error.hpp"

namespace tiffany {
namespace {

thread_local int t_worker = -1;

// Appends `message` with control characters (and DEL) as \xHH, so a newline
// in an exception or a decoded request path cannot forge a second line.
void append_escaped(std::string& out, std::string_view message) {
  static constexpr char kHex[] = "0123456789abcdef";
  for (const char c : message) {
    const auto byte = static_cast<unsigned char>(c);
    if ((byte < 0x20 && byte != '\t') || byte == 0x7f) {
      out += "\\x";
      out += kHex[byte >> 4];
      out += kHex[byte & 0xf];
    } else {
      out += c;
    }
  }
}

// Writes all of `line` to `fd`; a log that cannot be written is given up on.
void write_all(int fd, std::string_view line) noexcept {
  while (!line.empty()) {
    const ssize_t written = ::write(fd, line.data(), line.size());
    if (written < 0) {
      if (errno == EINTR) continue;
      return;
    }
    line.remove_prefix(static_cast<std::size_t>(written));
  }
}

}  // namespace

ErrorLog::ErrorLog(UniqueFd fd, LogLevel level) : file_(std::move(fd)), level_(level) {}

void ErrorLog::reset(UniqueFd fd, LogLevel level) noexcept {
  file_ = std::move(fd);
  level_.store(level, std::memory_order_relaxed);
}

void ErrorLog::set_worker_of_this_thread(int index) noexcept { t_worker = index; }

void ErrorLog::log(LogLevel level, const char* format, ...) const noexcept {
  if (!enabled(level)) return;
  va_list args;
  va_start(args, format);
  write_line(level, format, args);
  va_end(args);
}

void ErrorLog::write_line(LogLevel level, const char* format, va_list args) const noexcept {
  try {
    char stack[512];
    va_list again;
    va_copy(again, args);
    const int length = std::vsnprintf(stack, sizeof stack, format, args);
    std::string message;
    if (length >= static_cast<int>(sizeof stack)) {
      message.resize(static_cast<std::size_t>(length) + 1);
      std::vsnprintf(message.data(), message.size(), format, again);
      message.resize(static_cast<std::size_t>(length));
    } else if (length > 0) {
      message.assign(stack, static_cast<std::size_t>(length));
    }
    va_end(again);
    // A line written while a task answers a request names that request.
    const std::string* request_id = http::kRequestId.get();
    const std::string line = format_line(std::chrono::system_clock::now(), level, t_worker, message,
                                         request_id != nullptr ? std::string_view(*request_id) : std::string_view());
    write_all(file_ ? file_.get() : STDERR_FILENO, line);
  } catch (...) {
    // Why: out of memory while reporting an error; losing the line beats terminating.
  }
}

std::string ErrorLog::format_line(std::chrono::system_clock::time_point when, LogLevel level, int worker,
                                  std::string_view message, std::string_view request_id) {
  const auto since_epoch = std::chrono::duration_cast<std::chrono::milliseconds>(when.time_since_epoch());
  const std::time_t seconds = static_cast<std::time_t>(since_epoch.count() / 1000);
  const int millis = static_cast<int>(since_epoch.count() % 1000);
  std::tm utc{};
  ::gmtime_r(&seconds, &utc);
  char prefix[96];
  int length = std::snprintf(prefix, sizeof prefix, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ [%s] ", utc.tm_year + 1900,
                             utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec, millis,
                             log_level_name(level).data());
  std::string line(prefix, static_cast<std::size_t>(length));
  if (worker >= 0) {
    length = std::snprintf(prefix, sizeof prefix, "worker %d: ", worker);
    line.append(prefix, static_cast<std::size_t>(length));
  }
  line.reserve(line.size() + message.size() + 1);
  append_escaped(line, message);
  if (!request_id.empty()) {
    line += ", request_id: ";
    append_escaped(line, request_id);
  }
  line += '\n';
  return line;
}

ErrorLog& error_log() noexcept {
  // Why: never destroyed, so a thread still logging while the process exits finds it intact.
  static ErrorLog* const log = new ErrorLog();
  return *log;
}

void open_error_log(const Config& config) {
  const ErrorLogConfig& wanted = config.error_log;
  const std::optional<LogLevel> level = log_level_from_name(wanted.level);
  if (!level) {  // the loader accepts only kLogLevelNames; a Config built in code may not
    throw ConfigError(config.file, wanted.json_path + ".level", "unknown level \"" + wanted.level + "\"");
  }
  if (wanted.path == "-") {
    error_log().reset(UniqueFd(), *level);
    return;
  }
  UniqueFd fd(::open(wanted.path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644));
  if (!fd) {
    throw ConfigError(config.file, wanted.json_path + ".path",
                      "cannot open \"" + wanted.path + "\" for appending: " + std::strerror(errno));
  }
  error_log().reset(std::move(fd), *level);
}

}  // namespace tiffany
