// ResponseWire: the narrow writer each HTTP protocol implements under the Exchange.
#pragma once

#include <cstdint>
#include <exception>
#include <optional>
#include <string_view>

#include <tiffany/coro/task.hpp>
#include <tiffany/http/body_reader.hpp>
#include <tiffany/http/delivery.hpp>
#include <tiffany/http/response.hpp>

#include "http/engine/websocket/connection_upgrade.hpp"

namespace tiffany::http {

/// How the handler's run ended, and what the request's body came to: the
/// exchange catches the first, the wire tells the rest (handler_ended).
struct HandlerEnd {
  bool timed_out = false;       ///< it ran past the handler deadline
  std::exception_ptr failure;   ///< what it threw; null if it returned or timed out
  bool websocket = false;       ///< it took the request over as a WebSocket
  /// The request body streamed to the handler, as the reading left it:
  /// BodyStatus::end when it arrived whole or none was streamed.
  BodyStatus body = BodyStatus::end;
  /// The answer to a body that failed to arrive when the protocol knows a
  /// more precise one than its BodyStatus (HTTP/1.1's parser); 0 otherwise.
  int body_error_status = 0;
  /// The client hung up while a handler that asked to be canceled then ran
  /// (HTTP/1.1's ClientWatch): nothing is answered (after_client_gone).
  bool client_gone = false;
};

/// What a protocol does to put a response on the wire; HttpConnection
/// (HTTP/1.1) and Http2Stream implement it. The Exchange runs the request
/// (Exchange::respond) and is the response's sink (what handlers,
/// accept_websocket and the proxy reach through Response::sink()); it
/// decides what every protocol decides alike: the status for how the
/// handler ended, whether a body is sent, its content coding and so its
/// length, the handler's bytes before coding. The wire frames and writes (a
/// head, a whole response, chunks or DATA frames, a file from the page
/// cache, the end of a body or a reset) and upgrades to a WebSocket.
class ResponseWire : public websocket::ConnectionUpgrade {
 public:
  /// How a streamed response's head was taken.
  enum class Head : std::uint8_t {
    sent,
    /// A field the handler set is not valid HTTP: a 500 went in its place,
    /// and nothing more of this response goes.
    refused,
  };
  /// Sends the head of a streamed response (its status and fields). Its body
  /// is `length` bytes when that is known, else of unknown length; none is
  /// sent when `bodyless` (HEAD, 1xx, 204, 304); `encoded`: a content coding
  /// replaced the handler's body (and its declared length).
  virtual Task<Head> send_head(const Response& response, std::optional<std::uint64_t> length, bool bodyless,
                               bool encoded) = 0;
  /// Writes body bytes as they go on the wire (coded already), and waits
  /// while too much of the response is unwritten; empty: sends what waits
  /// (the head, and on HTTP/1.1 the pipelined answers before it).
  virtual Task<Delivery> write_piece(std::string_view bytes) = 0;
  /// True once nothing more can go: a write failed, the stream was reset, or
  /// a head was refused.
  virtual bool write_closed() const noexcept = 0;
  /// Sends `length` bytes of the open file `fd` from `offset` straight from
  /// the page cache, where the wire can (a plain socket, the body framed by
  /// its length); nullopt when it cannot, with nothing sent.
  virtual Task<std::optional<Delivery>> send_file_range(int fd, std::uint64_t offset, std::uint64_t length);
  /// After the head went: the socket another socket may splice the body into
  /// byte for byte (see SpliceSink::begin_splice), or -1 (TLS, HTTP/2, chunks).
  virtual int splice_socket() const noexcept { return -1; }
  /// Counts `bytes` of the body spliced into splice_socket().
  virtual void spliced(std::uint64_t) noexcept {}
  /// A splice into splice_socket() failed (`timed_out`: the client took nothing in time).
  virtual void splice_failed(bool) noexcept {}

  // ---- around the handler (Exchange::respond) ----
  /// Routing chose the handler that runs next (HTTP/1.1 watches its client
  /// when the route asks to be canceled on a hang-up: ClientWatch).
  virtual void handler_routed() {}
  /// The handler ended: tells `end` what the wire knows (a WebSocket it
  /// took, how a streamed request body ended, a watched client that hung
  /// up), and settles what the handler left (HTTP/1.1: closes after the
  /// response when the unread rest of a streamed body cannot be dropped).
  virtual void handler_ended(HandlerEnd&) {}
  /// True when a TaskCanceled reaching the handler means nobody waits for
  /// the answer (HTTP/2: the stream was reset or its connection ended): the
  /// request unwinds with it, unanswered and unlogged, once a WebSocket it
  /// took has ended. False: the handler failed (HTTP/1.1).
  virtual bool cancel_unwinds() const noexcept { return false; }
  /// After handler_ended said the client is gone: nothing is answered, and
  /// sent() says what the access log counts (HTTP/1.1: 499 unless a head
  /// went out). `failure`: what the handler ended with.
  virtual Task<void> after_client_gone(const std::exception_ptr& failure);

  // ---- acting on the exchange's verdict ----
  /// Sends `response` whole: HTTP/1.1 appends it to what waits for the
  /// connection's next write (pipelined answers go out together), HTTP/2
  /// submits it. `encoded`: a content coding replaced its body, so its
  /// length is the body's (none for HEAD), not a declared one.
  virtual void send_whole(const Response& response, bool encoded) = 0;
  /// Sends `error` (Exchange::plain_error) whole in place of the handler's
  /// response, which nothing of went out: the handler's state, or the
  /// request's, is unknown (HTTP/1.1 closes the connection after it).
  virtual void send_error(const Response& error) { send_whole(error, false); }
  /// Ends a streamed response: `tail` (the content coding's last bytes, empty
  /// when none or write_closed()), then the body's end (HTTP/1.1's last
  /// chunk, HTTP/2's END_STREAM); nothing when the head never went.
  /// `as_declared`: the handler sent the length its head declared, or
  /// declared none; after one that did not (the exchange logged it) HTTP/1.1,
  /// framed by that length, closes the connection, and HTTP/2 resets the
  /// stream instead of ending it.
  virtual void end_stream(std::string_view tail, bool as_declared) = 0;
  /// The response cannot be completed (its head went), or nobody waits for
  /// it: HTTP/1.1 closes the connection after what is buffered, so a body
  /// cut short shows; HTTP/2 resets the stream (INTERNAL_ERROR).
  virtual void cut() noexcept = 0;
  /// After the handler of a WebSocket returned (`failed`: it threw or timed
  /// out): the close handshake, the session's end, then the connection's
  /// (HTTP/1.1 closes) or the stream's (HTTP/2: END_STREAM, or
  /// RST_STREAM(CANCEL) when the session broke off).
  virtual Task<void> end_websocket(bool failed) = 0;
  /// What the access log says of the request.
  struct Sent {
    bool logged = true;           ///< false: no line (HTTP/2: reset unanswered, which the connection logged)
    int status = 0;               ///< of the head that went
    std::uint64_t body_bytes = 0; ///< of the body that went
  };
  virtual Sent sent() const noexcept = 0;

 protected:
  ~ResponseWire() = default;
};

}  // namespace tiffany::http
