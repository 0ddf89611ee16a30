// ResponseParser: the outbound client's llhttp adapter. Turns the bytes of a
// connection into response events (head, streamed body, end) under strict framing.
#pragma once

#include <llhttp.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <tiffany/http/headers.hpp>

namespace tiffany::http {

/// The sizes past which a response is refused (a client's own limits, not the server's).
struct ResponseLimits {
  std::size_t max_header_bytes = 16 * 1024;      ///< status line + header fields (each 1xx counts anew)
  std::size_t max_header_count = 100;            ///< header fields of one head
  std::size_t max_trailer_bytes = 16 * 1024;     ///< the trailer section of a chunked body
  std::size_t max_trailer_count = 100;           ///< trailer fields
  std::size_t max_chunk_extension_bytes = 1024;  ///< extensions of one chunk
  std::size_t max_interim_responses = 16;        ///< 1xx heads before the final one
};

/// What the caller asked for, which decides how the response is framed.
struct ExpectedResponse {
  bool head_request = false;  ///< the request was HEAD: the response has no body whatever it says
  bool upgrade = false;       ///< the request asked to switch protocols: 101 is the final response
};

/// How the final response's body is delimited (RFC 9112 §6.3).
enum class BodyFraming {
  none,            ///< HEAD, 1xx, 204, 304, or Content-Length: 0
  content_length,  ///< exactly content_length bytes
  chunked,         ///< Transfer-Encoding with chunked last
  until_eof,       ///< neither, or a final coding other than chunked: the body ends when the server closes
};

struct ResponseHead {
  int version_major = 1;
  int version_minor = 1;
  int status = 0;
  std::string reason;
  Headers headers;
  BodyFraming framing = BodyFraming::none;
  std::uint64_t content_length = 0;  ///< with BodyFraming::content_length
};

/// Incremental parser for the responses on one connection, in order. feed()
/// stops at every event so the caller acts on it (body spans point into the
/// input, never copied), then calls feed() again with the unconsumed rest —
/// even an empty rest: after `interim`, `headers` and `body` the next event
/// may need no more bytes (a bodiless response completes at once). Only
/// `need_more` asks for a read. Any split of the bytes gives the same events.
/// Not thread-safe; one per connection.
class ResponseParser {
 public:
  enum class Event {
    need_more,  ///< everything was consumed; read more (or call finish() at EOF)
    interim,    ///< a 1xx head is in head(); the final response follows on the same stream
    headers,    ///< the final response's head is in head(); its body (if any) follows
    body,       ///< Result::body holds the next body bytes (decoded from chunks), a view into the input
    complete,   ///< the response ended; keep_alive() says whether the connection may carry another
    closed,     ///< finish(): the server closed between responses (nothing was cut)
    error,      ///< bad or cut input: error_kind(), error_message(); the connection must be closed
  };
  enum class ErrorKind {
    none,
    malformed,          ///< status line or field syntax: bare CR, obs-fold, space before colon, bad token
    framing,            ///< Content-Length and Transfer-Encoding in conflict, invalid or differing lengths
    bad_chunk,          ///< a chunk size that is junk or overflows, a malformed chunk or trailer
    too_large,          ///< head, trailers, chunk extensions or interim responses past the limits
    unexpected_status,  ///< 101 without an upgrade asked, or not HTTP/1.x
    truncated,          ///< the connection closed inside a head or a sized or chunked body
    trailing_data,      ///< bytes after a response that closes the connection (or after 101)
  };
  struct Result {
    Event event;
    std::size_t consumed;   ///< bytes of the input used
    std::string_view body;  ///< with Event::body
  };

  explicit ResponseParser(const ResponseLimits& limits = {});
  ResponseParser(const ResponseParser&) = delete;
  ResponseParser& operator=(const ResponseParser&) = delete;

  /// Says what the next response answers. Call before feeding its first
  /// byte; after `complete` the parser expects a plain response until told otherwise.
  void expect(const ExpectedResponse& expected) noexcept { expected_ = expected; }

  Result feed(std::string_view data);
  /// The server closed its side. `complete` ends a read-until-EOF body (or a
  /// bodiless one not yet fed on), `closed` means no response was in
  /// progress; anything else is `error` (truncated). Later feeds of bytes are errors.
  Result finish();

  /// The last interim or final head (valid after `interim`/`headers` until the next one starts).
  const ResponseHead& head() const noexcept { return head_; }
  /// The trailer fields of a chunked response (valid after `complete`).
  const Headers& trailers() const noexcept { return trailers_; }
  /// After `complete`: may the connection carry another request? (HTTP/1.1
  /// unless `Connection: close`; HTTP/1.0 only with `Connection: keep-alive`;
  /// never after a body read to EOF or a 101.)
  bool keep_alive() const noexcept { return keep_alive_; }
  /// After `complete` of a 101 to an upgrade: the bytes after it are the new protocol's.
  bool upgraded() const noexcept { return upgraded_; }

  /// In a body framed by Content-Length: how many of its bytes are still to
  /// come (0 anywhere else). What a caller may move past the parser (splice).
  std::uint64_t sized_body_left() const noexcept {
    return state_ == State::in_body && head_.framing == BodyFraming::content_length ? parser_.content_length : 0;
  }
  /// Takes `count` bytes of a sized body as read without seeing them (they
  /// went from socket to socket by splice): the events are the ones those
  /// bytes would give, the body spans pointing at zeros. Returns the last
  /// event: `complete` once the body is all in (keep_alive() then says what
  /// it would have), `need_more` while bytes are still to come.
  Result skip_sized_body(std::uint64_t count);

  ErrorKind error_kind() const noexcept { return error_kind_; }
  const std::string& error_message() const noexcept { return error_message_; }

 private:
  enum class State { between, in_head, in_body, done, failed };

  static int on_message_begin(llhttp_t* parser);
  static int on_status(llhttp_t* parser, const char* at, std::size_t length);
  static int on_header_field(llhttp_t* parser, const char* at, std::size_t length);
  static int on_header_value(llhttp_t* parser, const char* at, std::size_t length);
  static int on_header_value_complete(llhttp_t* parser);
  static int on_chunk_extension(llhttp_t* parser, const char* at, std::size_t length);
  static int on_chunk_header(llhttp_t* parser);
  static int on_chunk_complete(llhttp_t* parser);
  static int on_headers_complete(llhttp_t* parser);
  static int on_body(llhttp_t* parser, const char* at, std::size_t length);
  static int on_message_complete(llhttp_t* parser);

  int fail(ErrorKind kind, std::string message);
  /// Fails with too_large, remembering the byte that crossed the head limit.
  int head_too_large(const char* crossing, const char* message);
  Result failed(std::size_t consumed);
  int check_head();
  /// What is wrong with these bytes of a head (nullptr: nothing).
  const char* scan_head_bytes(std::string_view bytes) noexcept;
  void flush_open_span(const char* position);
  void map_llhttp_error(llhttp_errno_t error);

  ResponseLimits limits_;
  ExpectedResponse expected_;
  llhttp_settings_t settings_;
  llhttp_t parser_;
  ResponseHead head_;
  Headers trailers_;
  State state_ = State::between;
  Event pending_ = Event::need_more;        // the event a callback paused for
  std::string_view body_;                   // the span on_body paused with
  const char* limit_crossed_at_ = nullptr;  // in this feed's input: the byte past a head limit
  std::size_t header_bytes_ = 0;
  std::size_t trailer_bytes_ = 0;
  std::size_t extension_bytes_ = 0;
  std::size_t interim_count_ = 0;
  bool last_was_value_ = false;          // header callbacks alternate field/value, possibly in pieces
  bool headers_done_ = false;            // later fields are trailers
  bool transfer_encoding_seen_ = false;  // even an empty one (llhttp flags only a non-empty value)
  bool interim_ = false;                 // the head being parsed is a 1xx
  bool after_lf_ = false;                // the head bytes so far end with LF (an obs-fold check)
  bool after_cr_ = false;                // ... with CR (a bare LF check)
  bool keep_alive_ = false;
  bool upgraded_ = false;
  ErrorKind error_kind_ = ErrorKind::none;
  std::string error_message_;
};

}  // namespace tiffany::http
