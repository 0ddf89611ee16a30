// RequestParser: the llhttp adapter. Turns bytes into Requests one at a time,
// enforcing limits and mapping every kind of bad input to a precise status.
#pragma once

#include <llhttp.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <tiffany/http/http_limits.hpp>
#include <tiffany/http/request.hpp>

namespace tiffany::http {

/// Incremental parser for a stream of pipelined requests. Feed it whatever
/// arrived; it stops after each complete request so the caller can answer it
/// before parsing on. Fragmentation anywhere (even one byte at a time) is fine.
class RequestParser {
 public:
  enum class Event {
    need_more,      ///< everything was consumed; read more bytes
    request_ready,  ///< request() is complete; answer it, then call next()
    error,          ///< bad input: answer error_status() and close
  };
  struct Result {
    Event event;
    std::size_t consumed;  ///< bytes of the input used
  };

  explicit RequestParser(const HttpLimits& limits);
  RequestParser(const RequestParser&) = delete;
  RequestParser& operator=(const RequestParser&) = delete;

  Result feed(std::string_view data);
  /// The peer closed its side. Returns error if a request was cut short.
  Event finish();
  /// Prepares for the next request (after request_ready).
  void next();

  Request& request() noexcept { return request_; }
  /// For the request just completed: may the connection stay open?
  bool keep_alive() const noexcept { return keep_alive_; }
  /// True (once) when the headers asked for "100 Continue" and the body has
  /// not arrived yet; the caller should send the interim response.
  bool take_continue_request() noexcept;
  /// True when bytes of a request have been received but it is incomplete.
  bool in_message() const noexcept { return in_message_; }
  /// True while the request line and headers are still arriving.
  bool in_headers() const noexcept { return in_message_ && !headers_done_; }

  int error_status() const noexcept { return error_status_; }
  /// After an error: the request as far as it was read (method and target
  /// may be empty), for the access log. Never handed to a handler.
  const Request& rejected() const noexcept { return request_; }
  const std::string& error_detail() const noexcept { return error_detail_; }

 private:
  static int on_message_begin(llhttp_t* parser);
  static int on_url(llhttp_t* parser, const char* at, std::size_t length);
  static int on_header_field(llhttp_t* parser, const char* at, std::size_t length);
  static int on_header_value(llhttp_t* parser, const char* at, std::size_t length);
  static int on_header_value_complete(llhttp_t* parser);
  static int on_chunk_header(llhttp_t* parser);
  static int on_headers_complete(llhttp_t* parser);
  static int on_body(llhttp_t* parser, const char* at, std::size_t length);
  static int on_message_complete(llhttp_t* parser);

  int fail(int status, std::string detail);
  bool count_header_bytes(std::size_t length);
  int check_headers();
  void remember_tail(std::string_view used) noexcept;
  /// True when the value starting at `at` follows a line fold (obs-fold).
  bool folded_before(const char* at) const noexcept;
  void map_llhttp_error(llhttp_errno_t error, std::string_view data, const char* error_pos);

  HttpLimits limits_;
  llhttp_settings_t settings_;
  llhttp_t parser_;
  Request request_;
  std::size_t header_bytes_ = 0;
  bool in_message_ = false;
  bool headers_done_ = false;
  bool last_was_value_ = false;  // header callbacks alternate field/value, possibly in pieces
  bool keep_alive_ = true;
  bool continue_pending_ = false;
  // Why these, filled as each field line completes: the checks at the end of
  // the header section (Host, Transfer-Encoding, Expect) then need no scan of
  // the fields. Reset per request.
  const char* feed_begin_ = nullptr;    // the bytes being fed, for the obs-fold check
  const char* feed_end_ = nullptr;
  bool value_closed_ = false;           // a piece of this field value ended at its CR: another is obs-fold
  bool tail_lf_ = false;                // the bytes fed so far end with LF (then maybe blanks)
  bool tail_blanks_ = false;            // ... and with blanks after that LF
  bool transfer_encoding_seen_ = false; // even an empty one (llhttp flags only a non-empty value)
  unsigned host_count_ = 0;
  std::size_t host_field_ = 0;          // index of the (first) Host field
  std::size_t expect_field_ = SIZE_MAX; // index of the first Expect field, or SIZE_MAX
  int error_status_ = 0;
  std::string error_detail_;
};

}  // namespace tiffany::http
