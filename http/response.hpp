// Response: what a handler fills in, either whole or streamed piece by piece.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <tiffany/coro/task.hpp>
#include <tiffany/http/headers.hpp>
#include <tiffany/http/http_status.hpp>

namespace tiffany::http {

class Response;

/// Where a streamed body goes; the HTTP connection implements it.
class BodySink {
 public:
  virtual ~BodySink() = default;
  /// Sends the response head (first call only) and then `piece`. Returns
  /// false once the peer is gone; the handler should stop writing.
  virtual Task<bool> write_body(Response& response, std::string_view piece) = 0;
  /// Sends the head (first call only) and then `length` bytes of the open
  /// file `fd` from `offset`. This default reads the file piece by piece
  /// into a buffer and writes each; the HTTP connection sends straight from
  /// the page cache where its stream allows (sendfile on a plain socket).
  virtual Task<bool> send_file(Response& response, int fd, std::uint64_t offset, std::uint64_t length);
};

/// A response under construction. Two ways to produce a body:
/// - whole: set `body`; the connection sends it after the handler returns,
///   with Content-Length, batched with other pipelined responses;
/// - streamed: `co_await write(piece)` repeatedly; the head goes out with the
///   first piece, with Content-Length if set_content_length() was called,
///   otherwise chunked (HTTP/1.1) or ended by closing (HTTP/1.0).
/// `Server`, `Date`, `Content-Length` and `Connection` are set by the server.
/// A field name must be a token and a value must hold no control byte but
/// HTAB (no CR, LF or NUL): the server writes nothing of a response that
/// breaks this, answers 500 in its place, logs the handler and the field,
/// and closes the connection.
class Response {
 public:
  int status = 200;
  Headers headers;
  std::string body;

  void set_content_type(std::string_view type) { headers.set("Content-Type", type); }
  /// `status` by name: `response.set_status(Status::created)`.
  void set_status(Status code) noexcept { status = to_int(code); }

  /// Declares the exact size of a streamed body (e.g. a file).
  void set_content_length(std::uint64_t length) noexcept { content_length_ = length; }
  const std::optional<std::uint64_t>& content_length() const noexcept { return content_length_; }

  /// Streams one piece of the body. False if the connection failed.
  Task<bool> write(std::string_view piece) { return sink_->write_body(*this, piece); }
  /// Streams `length` bytes of the open file `fd` from `offset` (the caller
  /// keeps it open until this returns), with no copy through user space
  /// where the connection allows: a slow reader of a large file costs no
  /// buffer. Declare the length first (set_content_length). False if the
  /// connection failed or the file ended early.
  Task<bool> send_file(int fd, std::uint64_t offset, std::uint64_t length) {
    return sink_->send_file(*this, fd, offset, length);
  }
  bool streaming() const noexcept { return head_sent_; }

  // ---- the connection's side ----
  void attach(BodySink* sink) noexcept { sink_ = sink; }
  void mark_head_sent() noexcept { head_sent_ = true; }
  /// Resets for the next request, keeping storage.
  void clear() noexcept {
    status = 200;
    headers.clear();
    body.clear();
    content_length_.reset();
    head_sent_ = false;
  }

 private:
  BodySink* sink_ = nullptr;
  std::optional<std::uint64_t> content_length_;
  bool head_sent_ = false;
};

}  // namespace tiffany::http
