// AccessLog: Combined Log Format or JSON lines, escaped, batched.
#include "server/log/access_log.hpp"

#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdio>

#include <tiffany/coro/sleep.hpp>
#include <tiffany/http/utf8.hpp>

namespace tiffany {
namespace {

void append_number(std::string& out, std::uint64_t value) {
  char digits[24];
  const auto [end, error] = std::to_chars(digits, digits + sizeof digits, value);
  out.append(digits, static_cast<std::size_t>(end - digits));
}

// Appends `text` as nginx's default log escaping does, so that it cannot
// break the line or the quoting (no log injection) and the line stays ASCII:
// quotes, backslashes, control bytes, DEL and every byte from 0x80 as \xHH.
void append_escaped(std::string& out, std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte >= 0x7f || c == '"' || c == '\\') {
      out += "\\x";
      out += kHex[byte >> 4];
      out += kHex[byte & 15];
    } else {
      out += c;
    }
  }
}

// The current time in a log's format, recomputed at most once a second.
std::string_view timestamp(bool iso) {
  thread_local time_t cached_second = 0;
  thread_local char common[40];
  thread_local char iso8601[32];
  timespec now{};
  clock_gettime(CLOCK_REALTIME_COARSE, &now);
  if (now.tv_sec != cached_second) {
    cached_second = now.tv_sec;
    tm parts{};
    gmtime_r(&now.tv_sec, &parts);
    strftime(common, sizeof common, "[%d/%b/%Y:%H:%M:%S +0000]", &parts);
    strftime(iso8601, sizeof iso8601, "%Y-%m-%dT%H:%M:%SZ", &parts);
  }
  return iso ? iso8601 : common;
}

}  // namespace

void AccessLog::record(const http::Request& request, std::string_view peer, std::string_view request_id, int status,
                       std::uint64_t bytes, std::chrono::microseconds took) {
  if (format_ == AccessLogFormat::json) {
    append_json(request, peer, request_id, status, bytes, took);
  } else {
    append_common(request, peer, request_id, status, bytes, took);
  }
  if (buffer_.size() >= kFlushAt) flush();
}

void AccessLog::append_common(const http::Request& request, std::string_view peer, std::string_view request_id,
                              int status, std::uint64_t bytes, std::chrono::microseconds took) {
  std::string& out = buffer_;
  out.append(peer.substr(0, peer.rfind(':')));  // the address without the port
  out += " - ";
  // The authenticated user (basic_auth's request attribute), as nginx's $remote_user.
  const std::optional<std::string_view> user = request.attribute("user");
  if (user && !user->empty()) {
    append_escaped(out, *user);
  } else {
    out += '-';
  }
  out += ' ';
  out += timestamp(false);
  out += " \"";
  if (request.method.empty()) {
    out += "-\" ";  // refused before a request line was read
  } else {
    append_escaped(out, request.method);
    out += ' ';
    append_escaped(out, request.target);
    out += request.version_major == 2 ? " HTTP/2.0\" " : request.version_minor == 0 ? " HTTP/1.0\" " : " HTTP/1.1\" ";
  }
  append_number(out, static_cast<std::uint64_t>(status));
  out += ' ';
  append_number(out, bytes);
  out += " \"";
  append_escaped(out, request.headers.get("Referer").value_or("-"));
  out += "\" \"";
  append_escaped(out, request.headers.get("User-Agent").value_or("-"));
  out += "\" ";
  append_number(out, static_cast<std::uint64_t>(took.count()));
  out += ' ';
  out.append(request_id.empty() ? std::string_view("-") : request_id);  // valid ids need no escaping
  // Why a field only then: a response cut short (a file truncated as it was sent) must not pass
  // for a whole one, and whole ones, nearly all, keep the line every tool reads.
  if (request.attribute("incomplete")) out += " incomplete";
  out += '\n';
}

void AccessLog::append_json(const http::Request& request, std::string_view peer, std::string_view request_id,
                            int status, std::uint64_t bytes, std::chrono::microseconds took) {
  // The path and query as received (not normalised: "/a/%2e%2e/b" is logged
  // so), as valid JSON whatever their bytes.
  const std::string_view target = request.target;
  const auto question = target.find('?');
  const std::string_view path = target.substr(0, question);
  const std::string_view query = question == std::string_view::npos ? std::string_view{} : target.substr(question + 1);
  std::string& out = buffer_;
  out += "{\"time\":\"";
  out += timestamp(true);
  out += "\",\"peer\":\"";
  http::append_json_string_content(peer, out);
  out += "\",\"method\":\"";
  http::append_json_string_content(request.method, out);
  out += "\",\"path\":\"";
  http::append_json_string_content(path, out);
  out += "\",\"query\":\"";
  http::append_json_string_content(query, out);
  out += "\",\"status\":";
  append_number(out, static_cast<std::uint64_t>(status));
  out += ",\"bytes\":";
  append_number(out, bytes);
  out += ",\"duration_us\":";
  append_number(out, static_cast<std::uint64_t>(took.count()));
  out += ",\"user_agent\":\"";
  http::append_json_string_content(request.headers.get("User-Agent").value_or(""), out);
  out += "\",\"request_id\":\"";
  http::append_json_string_content(request_id, out);
  out += "\",\"user\":\"";  // the authenticated user (basic_auth), "" if none
  http::append_json_string_content(request.attribute("user").value_or(""), out);
  out += '"';
  if (request.attribute("incomplete")) out += ",\"incomplete\":true";
  out += "}\n";
}

void AccessLog::flush() noexcept {
  std::size_t written = 0;
  while (written < buffer_.size()) {
    const ssize_t n = ::write(fd_, buffer_.data() + written, buffer_.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // a full disk must not stop the server; the lines are dropped
    written += static_cast<std::size_t>(n);
  }
  buffer_.clear();
}

Task<void> AccessLog::flush_every(std::chrono::milliseconds period) {
  for (;;) {
    co_await Sleep{period};
    flush();
  }
}

}  // namespace tiffany
