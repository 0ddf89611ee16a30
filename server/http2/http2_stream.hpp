// Http2Stream: one HTTP/2 request and its response; its task runs the handler.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <nghttp2/nghttp2.h>

#include <tiffany/coro/deadline.hpp>
#include <tiffany/coro/scheduler.hpp>
#include <tiffany/coro/task.hpp>
#include <tiffany/coro/wake_signal.hpp>
#include <tiffany/handlers/handler.hpp>
#include <tiffany/http/request.hpp>
#include <tiffany/http/response.hpp>

#include "http/engine/websocket/connection_upgrade.hpp"
#include "server/http/exchange.hpp"
#include "server/http/http_site.hpp"
#include "server/http/response_wire.hpp"
#include "server/http2/stream_input.hpp"
#include "server/http2/stream_phase.hpp"
#include "server/transport/connection_tracker.hpp"

namespace tiffany {
namespace http {
class WebSocketSession;
}
}

namespace tiffany::http2 {

class Http2Connection;
class Http2Tunnel;

/// Submits a 100 (Continue) on stream `id`, an interim answer ahead of its final one; false if nghttp2 refused it.
bool submit_continue(nghttp2_session* session, std::int32_t id);

/// What the connection keeps of a stream: its stages, limits and timers.
/// Why a base of Http2Stream: reuse() resets it whole in one assignment.
struct StreamBooks {
  StreamPhase phase = StreamPhase::headers;  // changed only by Http2Connection::enter
  bool closed = false;            // nghttp2 closed the stream
  bool request_complete = false;  // END_STREAM arrived
  int refusal = 0;                // the status a limit passed while the header block arrived calls for
  bool body_streamed = false;     // the task started with the header block and reads the body as it arrives
  bool websocket_connect = false;  // an extended CONNECT with :protocol websocket (RFC 8441), routed as a GET
  std::string connect_protocol;    // :protocol, as received
  std::size_t counted_body = 0;   // body bytes counted in the connection's budget
  std::string cookies;            // the cookie fields, joined (RFC 9113 §8.2.3)
  std::size_t header_bytes = 0;   // decoded, as SETTINGS_MAX_HEADER_LIST_SIZE counts them
  std::size_t header_count = 0;
  std::size_t unconsumed = 0;     // body bytes received but not yet given back to the client's window
  Scheduler::Clock::time_point opened{};      // HEADERS began
  Scheduler::Clock::time_point body_began{};  // the header block ended
  Scheduler::Clock::time_point last_input{};  // the last body bytes (or body_began)
  std::optional<Scheduler::Clock::time_point> stalled_since;  // output waiting on the client's window
  std::uint64_t output_taken = 0;        // body bytes the session has framed (read_data): the stall clock's progress
  std::uint64_t taken_when_stalled = 0;  // output_taken when stalled_since was last set
  std::size_t slot = 0;           // its entry's index in the connection's streams
  bool window_held = false;       // listed among the connection's streams whose window it holds

  /// Its body may still come: the header block ended, END_STREAM did not
  /// come, and the connection did not answer it itself.
  bool awaits_body() const noexcept {
    return !request_complete && (phase == StreamPhase::uploading || phase == StreamPhase::running);
  }
};

/// A stream from its HEADERS to its close. The connection assembles the
/// request, then starts run() as a task of its own; the task answers it
/// through the stream's Exchange (Exchange::respond: routing, middleware,
/// the handler, its judgment, the log line), as an HTTP/1.1 connection
/// does, and the stream, its ResponseWire, hands the response to the
/// session. The request's body:
///  - whole: the task starts once the body is complete (Request::body);
///  - streamed, for a handler that streams request bodies (and for a
///    WebSocket opened by an extended CONNECT, RFC 8441): the task starts
///    with the header block, and the handler reads the DATA as it arrives
///    (BodySource); the client's window reopens only for what it took.
/// The response:
///  - whole: submitted when the handler returns, the body read from the
///    Response by the session's data provider (no copy of its own);
///  - streamed: the head goes with the first write, each piece waits in
///    `pending_` until the session sends it. A stream holds at most
///    kMaxPendingBytes: a write past that waits until the client's flow
///    control lets them go (back-pressure).
///
/// Shared by the connection (until the stream closes) and its task (until
/// it ends), so whichever goes first leaves the other a live object; a
/// connection that ends detaches its streams first (connection() is null).
class Http2Stream final : public StreamBooks,
                          public http::ResponseWire,
                          public http::BodySource {
 public:
  /// What a stream may hold of a streamed response's body before a write waits.
  static constexpr std::size_t kMaxPendingBytes = 256 * 1024;

  Http2Stream(Http2Connection& connection, const http::HttpSite& site, std::int32_t id);
  ~Http2Stream() override;

  /// The connection routed the request at its header block (to learn
  /// whether its handler streams the body): route() uses `routed` unless
  /// the middleware changed the method or the path since.
  void routed_early(http::Router::Result routed);

  /// Readies a stream that served a request before (its task ended, nobody
  /// else holds it) for stream `id` of `connection`, keeping the buffers it
  /// grew; see StreamPool.
  void reuse(Http2Connection& connection, std::int32_t id);
  /// Drops buffers past what a spare stream may keep (a large upload's, a long answer's).
  void trim() noexcept;
  const http::HttpSite& site() const noexcept { return site_; }

  std::int32_t id() const noexcept { return id_; }
  http::Request& request() noexcept { return request_; }
  const http::Response& response() const noexcept { return response_; }

  /// What the stream's task holds of it: the stream, shared, so it lives
  /// however early the connection forgets it. Its end (the task finished,
  /// unwound or was destroyed unstarted) is told to the stream (task_gone).
  class TaskHold {
   public:
    explicit TaskHold(std::shared_ptr<Http2Stream> stream) noexcept : stream_(std::move(stream)) {}
    TaskHold(TaskHold&&) noexcept = default;
    TaskHold& operator=(TaskHold&&) = delete;
    ~TaskHold();
    Http2Stream& operator*() const noexcept { return *stream_; }

   private:
    std::shared_ptr<Http2Stream> stream_;
  };
  /// The stream's task: answers the request.
  static Task<void> run(TaskHold self);
  /// The client reset the stream while its task runs: `unwinding` counts
  /// the task until it has ended (the connection's concurrency limit still
  /// counts it: Rapid Reset); it may outlive the connection.
  void count_unwinding(std::shared_ptr<std::size_t> unwinding) noexcept;
  /// Answers the request itself with `status` (a limit, a timeout), without a task.
  void answer_now(int status);
  /// The connection is gone: every later write fails, nothing reaches it.
  void detach() noexcept;
  /// The client reset the stream (or the connection ended it): writes fail.
  void mark_reset() noexcept;

  // ---- ResponseWire: the response's head and body, under the Exchange ----
  /// The HEADERS of a streamed response (content-length when known); a
  /// refused head: a 500 in its place, and the stream takes no more.
  Task<Head> send_head(const http::Response& response, std::optional<std::uint64_t> length, bool bodyless,
                       bool encoded) override;
  /// Queues `bytes` as DATA, and waits while more than kMaxPendingBytes wait.
  Task<http::Delivery> write_piece(std::string_view bytes) override;
  bool write_closed() const noexcept override { return reset_ || connection_ == nullptr; }

  /// nghttp2's data provider: up to `length` bytes of the body into `buffer`.
  ssize_t read_data(std::uint8_t* buffer, std::size_t length, std::uint32_t* flags) noexcept;

  /// BodySource: the next piece of a streamed body (the handler's reads),
  /// under the listener's body timeouts.
  Task<http::BodyChunk> read_body() override;
  /// ConnectionUpgrade: answers 200 and runs a WebSocket on the stream's
  /// DATA (RFC 8441); only for an extended CONNECT.
  Task<http::WebSocket*> upgrade_to_websocket(http::Response& response, http::websocket::UpgradeTerms terms,
                                              http::WebSocketOptions options) override;
  bool websocket_by_connect() const noexcept override { return websocket_connect; }
  // ---- ResponseWire: around the handler, and what the Exchange decided ----
  /// Tells the WebSocket and how a streamed body ended.
  void handler_ended(http::HandlerEnd& end) override;
  /// A canceled task's stream was reset or its connection ended (detach).
  bool cancel_unwinds() const noexcept override { return true; }
  /// Submits response_ (it is `response`) whole: HEADERS, then DATA from its body.
  void send_whole(const http::Response& response, bool encoded) override;
  /// Queues `tail` and the END_STREAM of a streamed response; one whose body
  /// is not the length its head declared (not `as_declared`) is reset
  /// instead (INTERNAL_ERROR).
  void end_stream(std::string_view tail, bool as_declared) override;
  /// RST_STREAM(INTERNAL_ERROR), unless the stream is reset already.
  void cut() noexcept override;
  /// The close handshake, then the session's end (1011 when the handler
  /// failed); END_STREAM, or RST_STREAM(CANCEL) when the session broke off.
  Task<void> end_websocket(bool failed) override;
  /// No line when nothing went and the stream was reset (the connection
  /// logged the client's reset), nor when the connection ended.
  Sent sent() const noexcept override;

  // ---- the tunnel's (and the handler's) I/O ----
  /// The body as it arrives.
  StreamInput& input() noexcept { return input_; }
  /// Takes up to `max` bytes of input into `out` and reopens the window for them.
  std::size_t take_input(char* out, std::size_t max) noexcept;
  /// Whether queue_output() took the bytes.
  enum class Queued : std::uint8_t {
    ok,           ///< they wait for DATA frames (or nothing was to queue)
    stream_gone,  ///< the stream was reset or its connection ended: nothing more goes
  };
  /// Queues `bytes` for DATA frames (after the head), waiting while more
  /// than kMaxPendingBytes wait for the client's window.
  Task<Queued> queue_output(std::string_view bytes);

  /// Bytes of the response's body wait to go (for the write timeout).
  bool has_output() const noexcept;

 private:
  /// Submits response_ whole (HEADERS, then DATA from its body).
  void submit_whole();
  /// Submits the head of a streamed (or bodyless) response.
  bool submit_head(std::optional<std::uint64_t> content_length, bool with_body);
  /// The head could not go (an invalid field): a whole 500 in its place, and the handler's writes fail from now on.
  void answer_500_instead();
  /// Moves the response to `next` when OutputPhase allows it; else a bug:
  /// logged (report_state_bug) and the stream reset (INTERNAL_ERROR).
  void enter_output(OutputPhase next) noexcept;
  /// The request's connection-given fields (version, peer, TLS).
  void begin_request(Http2Connection& connection);
  /// The input was taken: reopen the client's window for `size` bytes.
  void input_taken(std::size_t size) noexcept;
  /// `Expect: 100-continue` is answered with a 100 before the first read of a streamed body.
  void invite_body();

  Http2Connection* connection_;
  const http::HttpSite& site_;
  std::int32_t id_;
  http::Request request_;
  http::Response response_;
  // Runs the request (Exchange::respond) through this wire; the response's sink.
  http::Exchange exchange_{site_, *this, " (HTTP/2)"};
  Deadline* deadline_ = nullptr;  // run()'s, while it runs
  bool head_request_ = false;
  bool reset_ = false;           // writes fail from now on
  // The body as the data provider sends it:
  std::string_view whole_;       // a whole response's body, from the Response
  std::string pending_;          // a streamed response's pieces not yet sent
  std::size_t pending_from_ = 0;  // sent bytes at the front of pending_
  bool encoded_ = false;         // compression replaced a whole body: its declared length no longer holds
  OutputPhase output_ = OutputPhase::none;  // changed only by enter_output()
  std::string lowered_names_;     // submit_head's scratch: the response's field names in lower case
  int sent_status_ = 0;
  std::uint64_t sent_bytes_ = 0;  // body bytes handed to the session
  WakeSignal drained_;            // a write waiting for pending_ to shrink
  StreamInput input_;             // a streamed body, or a tunnel's bytes
  bool invited_ = false;          // a 100 (Continue) went, or need not
  std::unique_ptr<Http2Tunnel> tunnel_;                 // the ByteStream a WebSocket speaks over
  std::shared_ptr<http::WebSocketSession> websocket_;  // from the 200 until the handler returns
  std::shared_ptr<std::size_t> unwinding_;  // set by count_unwinding until the task is gone
  // The WebSocket's count in the connection limits, from the 200 until it ends (or the task is gone).
  std::optional<ConnectionTracker::Slot> websocket_slot_;
};

}  // namespace tiffany::http2
