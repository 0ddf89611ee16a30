// Logger: tagging lines with the plugin and the request's route; the process's sink.
#include <tiffany/handlers/plugin_logger.hpp>

#include <unistd.h>

#include <atomic>
#include <cstdarg>
#include <cstdio>

#include <tiffany/http/request_context.hpp>

namespace tiffany {
namespace {

// Until the server installs its error log: `[level] line` on standard error.
class StderrSink final : public LogSink {
 public:
  bool enabled(LogLevel level) const noexcept override { return level >= LogLevel::info; }
  void write(LogLevel level, std::string_view line) noexcept override {
    std::fprintf(stderr, "[%s] %.*s\n", log_level_name(level).data(), static_cast<int>(line.size()), line.data());
  }
};

StderrSink g_stderr_sink;
std::atomic<LogSink*> g_sink{nullptr};

}  // namespace

void set_log_sink(LogSink* sink) noexcept { g_sink.store(sink, std::memory_order_release); }

LogSink& log_sink() noexcept {
  LogSink* sink = g_sink.load(std::memory_order_acquire);
  return sink != nullptr ? *sink : g_stderr_sink;
}

void Logger::log(LogLevel level, std::string_view message) const noexcept {
  LogSink& sink = log_sink();
  if (!sink.enabled(level)) return;
  try {
    std::string line = "plugin \"" + name_ + "\"";
    if (const http::RouteInfo* route = http::kRoute.get()) {
      line += " on route ";
      line += route->pattern;
    }
    line += ": ";
    line += message;
    sink.write(level, line);
  } catch (...) {
    // Why: out of memory while logging; losing the line beats terminating.
  }
}

void Logger::logf(LogLevel level, const char* format, ...) const noexcept {
  if (!log_sink().enabled(level)) return;
  char stack[512];
  va_list args;
  va_start(args, format);
  va_list again;
  va_copy(again, args);
  const int length = std::vsnprintf(stack, sizeof stack, format, args);
  va_end(args);
  if (length < 0) {
    va_end(again);
    return;
  }
  if (length < static_cast<int>(sizeof stack)) {
    va_end(again);
    log(level, std::string_view(stack, static_cast<std::size_t>(length)));
    return;
  }
  try {
    std::string message(static_cast<std::size_t>(length) + 1, '\0');
    std::vsnprintf(message.data(), message.size(), format, again);
    message.resize(static_cast<std::size_t>(length));
    va_end(again);
    log(level, message);
  } catch (...) {
    va_end(again);
  }
}

}  // namespace tiffany
