// Response: what a handler fills in, either whole or streamed piece by piece.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <tiffany/coro/task.hpp>
#include <tiffany/http/delivery.hpp>
#include <tiffany/http/headers.hpp>
#include <tiffany/http/http_status.hpp>

namespace tiffany::http {

class Response;

/// Where a streamed body goes; the server's exchange implements it (and
/// the test kit's sinks).
class BodySink {
 public:
  virtual ~BodySink() = default;
  /// Sends the response head (first call only) and then `piece`; closed once
  /// nothing more can go (see Delivery).
  virtual Task<Delivery> write_body(Response& response, std::string_view piece) = 0;
  /// Sends the head (first call only) and then `length` bytes of the open
  /// file `fd` from `offset`. This default reads the file piece by piece
  /// into a buffer and writes each; the HTTP connection sends straight from
  /// the page cache where its stream allows (sendfile on a plain socket).
  virtual Task<Delivery> send_file(Response& response, int fd, std::uint64_t offset, std::uint64_t length);
};

/// A response under construction. Two ways to produce a body:
/// - whole: set `body`, or reference bytes kept elsewhere with
///   set_body_reference(); the connection sends it after the handler
///   returns, with Content-Length, batched with other pipelined responses;
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

  /// Makes the whole body `bytes`, which `owner` keeps alive (e.g. a cache
  /// entry's content: `set_body_reference(entry, *entry)`, or a slice of it),
  /// without copying them; clears `body`. Ownership: the response shares
  /// `owner` until clear(), another set_body_reference() or
  /// drop_body_reference(); the connection shares it too and releases it
  /// once the bytes are written, so whoever else holds the bytes (a cache
  /// evicting its entry, a handler destroyed by a reload) may let go at any
  /// time. `bytes` must stay valid and unchanged while `owner` lives. On a
  /// plain socket the connection sends the bytes straight from there beside
  /// the head (scatter-gather); TLS, and compression, read them as they are.
  /// Assigning a non-empty `body` later replaces them (it wins); code that
  /// reads a whole body should read body_bytes(), not `body`.
  void set_body_reference(std::shared_ptr<const void> owner, std::string_view bytes) noexcept {
    body.clear();
    body_owner_ = std::move(owner);
    body_reference_ = bytes;
  }
  /// Drops a referenced body (and the share of its owner); `body` stays.
  void drop_body_reference() noexcept {
    body_owner_.reset();
    body_reference_ = {};
  }
  /// True when the whole body is referenced bytes: set_body_reference() was
  /// called and `body` is still empty.
  bool has_body_reference() const noexcept { return body_owner_ != nullptr && body.empty(); }
  /// The whole body's bytes: the referenced ones (see has_body_reference),
  /// else `body`. Valid until the response changes.
  std::string_view body_bytes() const noexcept { return has_body_reference() ? body_reference_ : std::string_view(body); }
  /// What keeps the referenced bytes alive (null when there are none); the
  /// connection shares it until those bytes are written.
  const std::shared_ptr<const void>& body_owner() const noexcept { return body_owner_; }

  /// Declares the exact size of a streamed body (e.g. a file).
  void set_content_length(std::uint64_t length) noexcept { content_length_ = length; }
  const std::optional<std::uint64_t>& content_length() const noexcept { return content_length_; }

  /// Streams one piece of the body; Delivery::closed once nothing more can
  /// go (the handler should stop). Bind the result before testing it.
  Task<Delivery> write(std::string_view piece) { return sink_->write_body(*this, piece); }
  /// Streams `length` bytes of the open file `fd` from `offset` (the caller
  /// keeps it open until this returns), with no copy through user space
  /// where the connection allows: a slow reader of a large file costs no
  /// buffer. Declare the length first (set_content_length). Closed if the
  /// connection failed or the file ended early.
  Task<Delivery> send_file(int fd, std::uint64_t offset, std::uint64_t length) {
    return sink_->send_file(*this, fd, offset, length);
  }
  bool streaming() const noexcept { return head_sent_; }
  /// Ends a streamed response short, on purpose: its body cannot be
  /// completed (an upstream broke off mid-body). Once the handler returns,
  /// the server logs `why` and ends the response so that the client sees it
  /// incomplete (HTTP/1.1 closes the connection, HTTP/2 resets the stream).
  /// Write nothing more. Before the head is out, answer an error instead:
  /// a cut response with no head sent is ended with no answer at all.
  /// Why a value, not an exception: the handler did its job; the response
  /// just cannot end well (plugin ABI 7).
  void cut(std::string why) {
    cut_ = std::move(why);
    if (cut_.empty()) cut_ = "cut short";
  }
  /// Why the handler cut the response short (cut()); empty if it did not.
  const std::string& cut_reason() const noexcept { return cut_; }

  // ---- the connection's side ----
  void attach(BodySink* sink) noexcept { sink_ = sink; }
  /// The connection (or test double) the response goes to.
  BodySink* sink() const noexcept { return sink_; }
  void mark_head_sent() noexcept { head_sent_ = true; }
  /// Resets for the next request, keeping storage.
  void clear() noexcept {
    status = 200;
    headers.clear();
    body.clear();
    drop_body_reference();
    content_length_.reset();
    head_sent_ = false;
    cut_.clear();
  }

 private:
  BodySink* sink_ = nullptr;
  std::optional<std::uint64_t> content_length_;
  bool head_sent_ = false;
  // Why last: the fields above keep the offsets they had before referenced bodies (plugin ABI 3).
  std::shared_ptr<const void> body_owner_;  // keeps body_reference_'s bytes alive
  std::string_view body_reference_;
  std::string cut_;  // cut()'s reason
};

}  // namespace tiffany::http
