// HttpConnection: one HTTP/1.1 connection: parse, route, run handlers, reply.
#pragma once

#include <sys/uio.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <tiffany/coro/deadline.hpp>
#include <tiffany/coro/scheduler.hpp>
#include <tiffany/coro/task.hpp>
#include <tiffany/handlers/handler.hpp>
#include <tiffany/http/body_reader.hpp>
#include <tiffany/http/response.hpp>
#include <tiffany/reactor/read_lease.hpp>

#include <tiffany/net/byte_stream.hpp>

#include "http/engine/compression/response_compression.hpp"
#include "http/engine/request_parser.hpp"
#include "http/engine/websocket/connection_upgrade.hpp"
#include "server/http/body_phase.hpp"
#include "server/http/client_watch.hpp"
#include "server/http/connection_phase.hpp"
#include "server/http/exchange.hpp"
#include "server/http/response_wire.hpp"
#include "server/http/http_site.hpp"
#include "server/transport/stream_protocol.hpp"

namespace tiffany {
class Deadline;
}

namespace tiffany::http {

class WebSocketSession;

/// The HTTP/1.1 state of a connection while it is busy: parser, response,
/// output. Between bursts it is reused by other connections (HttpProtocol
/// keeps spares), so an idle connection holds none of it.
///
/// Pipelined requests are answered in order, and all responses produced from
/// one read go out in one write (up to 256 KiB, then earlier ones are sent
/// before more are parsed: back-pressure for peers that do not read).
/// A whole body the handler referenced (Response::set_body_reference) is not
/// copied on a stream that gathers writes: the write sends the buffered
/// heads and those bytes together (sendmsg), holding a share of each owner
/// until it is done.
///
/// A request whose route streams its body (Handler::streams_request_body)
/// is answered as soon as its header section is routed: the handler reads
/// the body through this connection (BodySource), which reads the socket
/// only when asked and sends "100 Continue" on the first read. What the
/// handler leaves unread is dropped to keep the connection (up to
/// kMaxDiscardBytes, under the body timeouts), or the connection closes
/// after the response when the client was never invited to send it or the
/// rest is larger than that.
///
/// A route whose handler asks for it (ClientAbortPolicy: the proxy) is
/// canceled when its client hangs up (FIN or RST) while it runs and the
/// request has been read whole (ClientWatch); nothing is answered and the
/// access log says 499.
///
/// A handler may switch the connection to WebSocket (accept_websocket): the
/// 101 goes out after the responses before it, a WebSocketSession takes the
/// stream (and the bytes read past the request) until the handler returns,
/// and then the connection closes.
///
/// What the connection and its current response are doing is in phases
/// (connection_phase.hpp, body_phase.hpp), each changed only by enter(),
/// which checks the change; the request's own facts (HEAD, HTTP/1.0) are
/// plain members beside them.
class HttpConnection final : public ResponseWire,
                             public BodySource {
 public:
  explicit HttpConnection(const HttpSite& site);
  HttpConnection(const HttpConnection&) = delete;
  HttpConnection& operator=(const HttpConnection&) = delete;

  /// Answers the requests in `first`, reading more while one is incomplete
  /// (under the header and body timeouts). Returns true when the connection
  /// is idle again with every request answered, false when it must close: the
  /// peer closed or failed, a request asked to close, bad input, a timeout.
  Task<AfterBurst> serve(ByteStream& stream, ConnectionContext& context, ReadLease first);
  /// Frees what a large burst grew (output and request body buffers) before this state waits for reuse.
  void trim() noexcept;

  // ---- ResponseWire: the current response's head and body, under the Exchange ----
  /// The head of a streamed response: with Content-Length when its length
  /// is known, else chunked (HTTP/1.0: up to the close). A refused head: a
  /// 500 in its place, and the connection closes after it.
  Task<Head> send_head(const Response& response, std::optional<std::uint64_t> length, bool bodyless,
                       bool encoded) override;
  /// Appends `bytes` (a chunk when chunked) and writes what waits.
  Task<Delivery> write_piece(std::string_view bytes) override;
  bool write_closed() const noexcept override { return connection_phase_ == ConnectionPhase::broken; }
  /// sendfile on a plain socket (see ByteStream) unless the body is chunked.
  Task<std::optional<Delivery>> send_file_range(int fd, std::uint64_t offset, std::uint64_t length) override;
  /// (spliced_body.cpp) This socket when the body may go on it as it is:
  /// not TLS, not chunked (the proxy splices into it).
  int splice_socket() const noexcept override;
  void spliced(std::uint64_t bytes) noexcept override;
  void splice_failed(bool timed_out) noexcept override;
  /// BodySource: the next piece of the current request's streamed body.
  Task<BodyChunk> read_body() override;
  /// ConnectionUpgrade: sends the 101 and starts the WebSocket.
  Task<WebSocket*> upgrade_to_websocket(Response& response, websocket::UpgradeTerms terms,
                                        WebSocketOptions options) override;
  // ---- ResponseWire: around the handler, and what the Exchange decided ----
  /// (client_watch.cpp) The routed handler may want its client watched.
  void handler_routed() override;
  /// (client_watch.cpp) Stops the client watch (a hang-up seen: client_gone),
  /// tells the WebSocket and the streamed body's end, and closes after the
  /// response when the unread rest of that body cannot be dropped.
  void handler_ended(HandlerEnd& end) override;
  /// (client_watch.cpp) After a watched handler's client hung up: nothing is
  /// answered, the access log says 499 (unless a head went out), and the
  /// connection closes.
  Task<void> after_client_gone(const std::exception_ptr& failure) override;
  /// Appends `response` (a 500 in its place when append_head refuses it) for the next flush.
  void send_whole(const Response& response, bool encoded) override { append_whole_response(response, encoded); }
  /// Closes after this response, and appends `error` unless the connection broke.
  void send_error(const Response& error) override;
  /// Appends the coding's tail and the last chunk unless the connection
  /// broke; closes after a body that missed its declared length (logged).
  void end_stream(std::string_view tail, bool as_declared) override;
  /// Closes the connection after what is buffered.
  void cut() noexcept override { close_after_response(); }
  /// The close handshake, then the session's end. The connection closes.
  Task<void> end_websocket(bool failed) override;
  Sent sent() const noexcept override;

  /// The most of a streamed body a handler left unread that is dropped to
  /// keep the connection open; a larger rest closes it after the response.
  static constexpr std::uint64_t kMaxDiscardBytes = 1024 * 1024;

 private:
  /// Whether the connection goes on after an answer.
  enum class AfterAnswer : std::uint8_t {
    keep_open,  ///< the next request may follow (the connection is open)
    close,      ///< it closes once what is buffered is written
  };
  /// Whether flush() wrote what waited.
  enum class Flushed : std::uint8_t {
    written,  ///< all of it (or nothing waited)
    failed,   ///< the peer failed, or did not read within the write timeout: the connection is broken
  };

  /// Answers parser_.request() through the Exchange (which logs it);
  /// after_answer() then says whether the connection goes on.
  Task<void> answer();
  /// Writes out_ and the referenced bodies under the write timeout; a failure breaks the connection.
  Task<Flushed> flush();
  /// Hands the request at headers_ready to its streaming handler: the body
  /// is read from `input` (the bytes left of it in `pending`) as it asks.
  void begin_streamed_body(ReadLease& input, std::string_view& pending);
  /// Moves the streamed body to `next` when BodyPhase allows it; else a bug:
  /// logged (report_state_bug), the phase stays and the connection closes
  /// after this request.
  void enter(BodyPhase next) noexcept;
  /// Moves the connection to `next` when ConnectionPhase allows it; else a
  /// bug: logged (report_state_bug) and the phase stays. Only open may go
  /// anywhere, and every other phase closes the connection after this response.
  void enter(ConnectionPhase next) noexcept;
  /// Moves the response to `next` when ResponsePhase allows it; else a bug:
  /// logged (report_state_bug), the phase stays and the connection closes
  /// after this response.
  void enter(ResponsePhase next) noexcept;
  /// This response is the connection's last: open becomes closing (the
  /// other phases close it already).
  void close_after_response() noexcept;
  /// A write failed, or a 500 replaced a head the handler set wrong (refuse):
  /// nothing more is written (broken; nothing changes when it is already).
  void break_connection() noexcept;
  /// keep_open while the connection is open, close in every other phase.
  AfterAnswer after_answer() const noexcept;
  /// After the streaming handler answered (`after`: may the connection go
  /// on?): drops the unread rest of the body when the connection stays
  /// open; close when it must close (`after` said so, a failed write, a rest
  /// that is too large or failed to arrive).
  Task<AfterAnswer> end_streamed_body(AfterAnswer after);
  /// Before a response head (handler_ended): closes after it when the
  /// unread rest of a streamed body cannot be dropped (the client waits for
  /// "100 Continue", or the rest is over kMaxDiscardBytes).
  void settle_unread_body() noexcept;
  /// Reads more of a streamed body into *input_ under the deadline the
  /// caller armed; a timeout is counted as the body stage's. While the
  /// unread rest is being dropped, a drain ends the wait after its idle
  /// grace instead (counted as closed by the drain, not a timeout).
  Task<Timed<IoResult>> read_body_bytes();
  /// Starts watching for the client's hang-up when the routed handler asked
  /// for it and no read of the request body is to come (a streamed body's
  /// reads own the socket: read_body() calls this at its end).
  void watch_client_if_wanted();
  /// After the last response and finish(): drops what the peer still sends,
  /// within the listener's linger limits, so it reads that response.
  Task<void> linger();
  /// Arms the deadline for a wait for more of the current request: the
  /// header budget, or the body's per-read and total budgets.
  void arm_read_deadline();
  /// Appends the status line and header fields of a response that goes as
  /// `next` (whole, identity, chunked: its framing; switching: a 101), and
  /// enters `next`. A field the handler set that is not valid HTTP (a name
  /// that is not a token; a value holding CR, LF, NUL or another control
  /// byte) is returned, with nothing of the head appended and the phase as
  /// it was; nullptr when the head was written. `content_length`: UINT64_MAX
  /// for none.
  const Headers::Field* append_head(const Response& response, std::uint64_t content_length, ResponsePhase next);
  /// Appends `response`, or a 500 in its place when append_head refuses it.
  /// `encoded`: compression replaced its body (Content-Length is the body's, none for HEAD).
  void append_whole_response(const Response& response, bool encoded = false);
  /// Logs that the handler set `invalid` and appends a 500 (and close) instead.
  void refuse(const Response& response, const Headers::Field& invalid);
  void append_error(int status);
  /// Answers bad input the parser refused (or a timeout) with `status`, and
  /// counts and logs it with what was read of the request.
  void reject(int status);
  /// Appends streamed body bytes as they go on the wire: a chunk, or as they are.
  void append_body_bytes(std::string_view bytes);
  /// Appends a whole body: a large referenced one as a reference to be
  /// gathered by the next write, anything else copied into out_.
  void append_whole_body(const Response& response, std::string_view bytes);
  /// out_ and the referenced bodies waiting with it, in bytes.
  std::size_t buffered_output() const noexcept { return out_.size() + referenced_bytes_; }
  /// Forgets what waits to be written, releasing the referenced bodies.
  void drop_output() noexcept;

  const HttpSite& site_;
  ByteStream* stream_ = nullptr;       // serve()'s
  const std::string* peer_ = nullptr;  // serve()'s
  bool tls_ = false;                   // serve()'s: the connection is TLS (Request::tls)
  Deadline* deadline_ = nullptr;       // serve()'s: the current stage's timeout
  int socket_ = -1;                    // serve()'s: the connection's socket, for ClientWatch (-1: none)
  TaskId task_ = 0;                    // serve()'s: the task running it, which ClientWatch cancels
  RequestParser parser_;
  Response response_;
  Exchange exchange_{site_, *this};  // runs each request (Exchange::respond) through this wire; the response's sink
  std::string out_;  // responses waiting for the next write
  // A referenced body waiting to be written: it goes on the wire after out_[0, at).
  struct Referenced {
    std::size_t at;
    std::string_view bytes;
    std::shared_ptr<const void> owner;  // keeps `bytes` alive until written
  };
  std::vector<Referenced> referenced_;  // in order of `at`; empty on streams that do not gather
  std::size_t referenced_bytes_ = 0;
  std::vector<iovec> pieces_;  // flush()'s scratch: out_ cut around the referenced bodies
  ConnectionPhase connection_phase_ = ConnectionPhase::open;  // changed only by enter(); open when a burst begins
  // Per request:
  std::optional<Scheduler::Clock::time_point> header_until_;  // the header section's budget, from its first wait
  std::optional<Scheduler::Clock::time_point> body_until_;    // the whole body's budget, from its first wait
  ResponsePhase response_phase_ = ResponsePhase::none;        // changed only by enter(); none at each response's start
  bool head_request_ = false;
  bool http10_ = false;
  std::uint64_t streamed_bytes_ = 0;  // of the body on the wire
  int sent_status_ = 0;            // of the last response head written, for the access log
  bool watch_client_ = false;      // the routed handler is canceled when its client hangs up
  ClientWatch client_watch_;
  std::uint64_t sent_length_ = 0;  // its body length (whole responses)
  // A streamed request body (between begin_ and end_streamed_body):
  ReadLease* input_ = nullptr;           // serve()'s read buffer, refilled by read_body()
  std::string_view* pending_ = nullptr;  // serve()'s unparsed bytes of it
  BodyPhase body_phase_ = BodyPhase::none;  // changed only by enter()
  // While answer() runs: serve()'s bytes read past the current request (a WebSocket's first frames).
  std::string_view* unparsed_ = nullptr;
  ReadLease* unparsed_lease_ = nullptr;          // ... and the buffer they are in
  std::shared_ptr<WebSocketSession> websocket_;  // from the 101 until the handler returns
  BodyStatus body_state_ = BodyStatus::data;  // data: more may come; else how the body ended
  int body_error_status_ = 0;                 // the answer to a failed read (413, 408, 400, ...)
};

}  // namespace tiffany::http
