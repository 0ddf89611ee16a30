// AccessLog: one line per HTTP request, buffered per worker, written in batches.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include <tiffany/coro/task.hpp>
#include <tiffany/http/request.hpp>

namespace tiffany {

enum class AccessLogFormat {
  common,  ///< Combined Log Format plus the request time in microseconds
  json,    ///< one JSON object per line
};

/// Formats request lines into a buffer and writes it with one write() per
/// 64 KiB (or per flush period), so logging adds no system call per request.
///
/// One per worker thread (not thread-safe); several may share the same file
/// descriptor, opened with O_APPEND, since each write is one whole batch of lines.
class AccessLog {
 public:
  AccessLog(int fd, AccessLogFormat format) : fd_(fd), format_(format) { buffer_.reserve(kFlushAt + 4096); }
  AccessLog(const AccessLog&) = delete;
  AccessLog& operator=(const AccessLog&) = delete;
  ~AccessLog() { flush(); }

  /// Logs `request` as received: its method and request-target (escaped),
  /// not the normalised path. A request refused before its line was read has
  /// an empty method and is logged with "-" for its request line. A request
  /// with the attribute "incomplete" (its response was cut short) is marked:
  /// a last field `incomplete`, or `"incomplete":true` in JSON.
  void record(const http::Request& request, std::string_view peer, std::string_view request_id, int status,
              std::uint64_t bytes, std::chrono::microseconds took);
  /// Writes what is buffered.
  void flush() noexcept;
  /// A task that flushes every `period` (so quiet servers still log promptly).
  Task<void> flush_every(std::chrono::milliseconds period);

 private:
  static constexpr std::size_t kFlushAt = 64 * 1024;

  void append_common(const http::Request& request, std::string_view peer, std::string_view request_id, int status,
                     std::uint64_t bytes, std::chrono::microseconds took);
  void append_json(const http::Request& request, std::string_view peer, std::string_view request_id, int status,
                   std::uint64_t bytes, std::chrono::microseconds took);

  int fd_;
  AccessLogFormat format_;
  std::string buffer_;
};

}  // namespace tiffany
