// HttpConnection: a response's bytes: the head, whole bodies, error answers, streamed chunks.
#include "server/http/http_connection.hpp"

#include <algorithm>
#include <charconv>
#include <string>

#include <tiffany/http/http_date.hpp>
#include <tiffany/http/http_status.hpp>

#include "handlers/engine/readiness.hpp"
#include "server/log/error_log.hpp"
#include "server/transport/connection_tracker.hpp"

namespace tiffany::http {
namespace {

// Why a floor: below it copying the bytes costs less than a vector of their
// own in sendmsg and a share of their owner (an atomic count up and down).
constexpr std::size_t kReferenceFrom = 1024;

void append_number(std::string& out, std::uint64_t value, int base = 10) {
  char digits[24];
  const auto [end, error] = std::to_chars(digits, digits + sizeof digits, value, base);
  out.append(digits, static_cast<std::size_t>(end - digits));
}

// Headers the connection owns; a handler's copies are dropped.
bool is_managed_header(std::string_view name) noexcept {
  switch (name.size()) {
    case 4: return iequals(name, "Date");
    case 6: return iequals(name, "Server");
    case 10: return iequals(name, "Connection");
    case 12: return iequals(name, "X-Request-Id");
    case 14: return iequals(name, "Content-Length");
    case 17: return iequals(name, "Transfer-Encoding");
    default: return false;
  }
}

}  // namespace

const Headers::Field* HttpConnection::append_head(const Response& response, std::uint64_t content_length,
                                                  ResponsePhase next) {
  // Why here, at the response, not at the request's head: a drain that began
  // while the body was arriving (a reload, a shutdown) must still close.
  if (site_.tracker != nullptr && site_.tracker->draining()) close_after_response();  // shutting down: last one
  // Why also the process's readiness: during drain_delay_ms the listeners still accept, but each
  // client should reconnect (to another instance, once its balancer has noticed the 503s).
  if (readiness() == Readiness::closing) close_after_response();
  const bool chunked = next == ResponsePhase::chunked;
  const std::size_t start = out_.size();
  out_ += "HTTP/1.1 ";
  append_number(out_, static_cast<std::uint64_t>(response.status));
  out_ += ' ';
  out_ += reason_phrase(response.status);
  out_ += "\r\nServer: tiffany\r\nDate: ";
  out_ += current_http_date();
  if (next == ResponsePhase::switching) {
    out_ += "\r\nConnection: Upgrade";
  } else if (connection_phase_ != ConnectionPhase::open) {
    out_ += "\r\nConnection: close";
  } else if (http10_) {
    out_ += "\r\nConnection: keep-alive";
  }
  if (const std::string& request_id = exchange_.request_id(); !request_id.empty()) {
    out_ += "\r\nX-Request-Id: ";
    out_ += request_id;
  }
  if (chunked) {
    out_ += "\r\nTransfer-Encoding: chunked";
  } else if (!status_forbids_body(response.status) && content_length != UINT64_MAX) {
    out_ += "\r\nContent-Length: ";
    append_number(out_, content_length);
  }
  for (const Headers::Field& field : response.headers) {
    if (is_managed_header(field.name)) continue;
    // Why: a handler or plugin builds fields from anything (a file name, a
    // request, an upstream's reply); one CR or LF written as is would let
    // that data add headers or a whole response of its own. Each byte is
    // looked up once in a table before it is copied.
    if (!is_valid_field_name(field.name) || find_invalid_field_value_byte(field.value) != std::string_view::npos) {
      out_.resize(start);  // nothing of this head reaches the wire
      return &field;
    }
    out_ += "\r\n";
    out_ += field.name;
    out_ += ": ";
    out_ += field.value;
  }
  out_ += "\r\n\r\n";
  sent_status_ = response.status;
  sent_length_ = chunked || content_length == UINT64_MAX || status_forbids_body(response.status) ? 0 : content_length;
  enter(next);
  return nullptr;
}

void HttpConnection::append_whole_response(const Response& response, bool encoded) {
  std::uint64_t length = response.content_length().value_or(response.body_bytes().size());
  // Why none for HEAD: the encoded size is only known by encoding, and a
  // HEAD answer may omit Content-Length but must not state a wrong one.
  if (encoded) length = head_request_ ? UINT64_MAX : response.body_bytes().size();
  if (const Headers::Field* invalid = append_head(response, length, ResponsePhase::whole)) {
    refuse(response, *invalid);
    return;
  }
  if (!head_request_ && !status_forbids_body(response.status)) append_whole_body(response, response.body_bytes());
}

void HttpConnection::append_whole_body(const Response& response, std::string_view bytes) {
  if (bytes.size() < kReferenceFrom || !response.has_body_reference() || !stream_->gathers_writes()) {
    out_ += bytes;  // TLS copies (encrypts) anyway; a small body is cheaper copied
    return;
  }
  referenced_.push_back(Referenced{out_.size(), bytes, response.body_owner()});
  referenced_bytes_ += bytes.size();
}

void HttpConnection::refuse(const Response& response, const Headers::Field& invalid) {
  if (error_log().enabled(LogLevel::error)) {
    const Request& request = parser_.request();
    const char* who = exchange_.handler_label_or("the server");
    constexpr int kShownName = 64;  // a name is shown up to this many bytes
    const int shown = static_cast<int>(std::min<std::size_t>(invalid.name.size(), kShownName));
    const std::size_t at = find_invalid_field_value_byte(invalid.value);
    if (!is_valid_field_name(invalid.name)) {
      error_log().log(LogLevel::error,
                      "%s set an invalid response header on %s %s: \"%.*s\" is not a valid field name; answered 500 "
                      "instead of %d",
                      who, request.method.c_str(), request.path.c_str(), shown, invalid.name.data(), response.status);
    } else {
      error_log().log(LogLevel::error,
                      "%s set an invalid response header on %s %s: \"%.*s\" has byte 0x%02x at offset %zu of its "
                      "value; answered 500 instead of %d",
                      who, request.method.c_str(), request.path.c_str(), shown, invalid.name.data(),
                      static_cast<unsigned>(static_cast<unsigned char>(invalid.value[at])), at, response.status);
    }
  }
  append_error(500);  // closes the connection, as after a handler that throws
}

void HttpConnection::append_error(int status) {
  if (status >= 500 || status == 400 || status == 413 || status == 414 || status == 431 || status == 417) {
    close_after_response();
  }
  Response error;
  Exchange::plain_error(error, status);
  append_whole_response(error);
}

void HttpConnection::append_body_bytes(std::string_view bytes) {
  if (bytes.empty()) return;  // an empty chunk would end the body
  streamed_bytes_ += bytes.size();
  if (response_phase_ == ResponsePhase::chunked) {
    append_number(out_, bytes.size(), 16);
    out_ += "\r\n";
    out_.append(bytes);
    out_ += "\r\n";
  } else {
    out_.append(bytes);
  }
}

}  // namespace tiffany::http
