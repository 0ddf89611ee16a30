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
    /// With stop_before_bodies(): the header section of a request with a
    /// body is complete and checked; call read_body_whole() or stream_body()
    /// before feeding more.
    headers_ready,
    /// After stream_body(): body_piece() is the next piece of the decoded
    /// body (a view into the bytes just fed); feed on for more. The end of
    /// the body is request_ready.
    body_piece,
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

  /// Whether feed() stops at the end of a header section that a body
  /// follows (headers_ready), so the caller can route the request before
  /// its body is read. Off by default: the body is read whole into request().body.
  void stop_before_bodies(bool stop) noexcept { stop_before_bodies_ = stop; }
  /// After headers_ready: the body goes into request().body, as without the stop.
  void read_body_whole() noexcept;
  /// After headers_ready: the body is handed out piece by piece (body_piece
  /// events), never stored; max_body_bytes still applies (413).
  void stream_body() noexcept;
  /// After a body_piece event: the piece.
  std::string_view body_piece() const noexcept { return piece_; }
  /// True right after a body_piece: feed() must be called (even with no
  /// bytes) before reading more, as the body may already be complete.
  bool after_piece() const noexcept { return pause_ == Pause::piece; }
  /// True when the request being streamed is framed by Content-Length, with
  /// `left` the bytes of it not parsed yet; false for a chunked body.
  bool sized_body_left(std::uint64_t& left) const noexcept;

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
  // Why a reason: llhttp has one "paused" state; feed() tells the caller which stop it was.
  enum class Pause : std::uint8_t { none, headers, piece, message };
  Pause pause_ = Pause::none;
  bool stop_before_bodies_ = false;
  bool streaming_body_ = false;      // this request's body is handed out in pieces
  std::uint64_t body_bytes_ = 0;     // of this request's decoded body so far
  std::string_view piece_;           // the last body_piece
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
