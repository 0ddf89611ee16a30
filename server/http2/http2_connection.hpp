// Http2Connection: one HTTP/2 connection: nghttp2 in memory, the socket, and a task per stream.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nghttp2/nghttp2.h>

#include <tiffany/coro/deadline.hpp>
#include <tiffany/coro/scheduler.hpp>
#include <tiffany/coro/task.hpp>
#include <tiffany/coro/wake_signal.hpp>
#include <tiffany/net/byte_stream.hpp>
#include <tiffany/reactor/read_lease.hpp>

#include "server/http/http_site.hpp"
#include "server/http2/client_stream_ids.hpp"
#include "server/http2/http2_stream.hpp"
#include "server/http2/self_dependency_scanner.hpp"
#include "server/http2/stream_pool.hpp"
#include "server/transport/connection_tracker.hpp"
#include "server/transport/stream_protocol.hpp"

namespace tiffany {
struct Http2Metrics;
}

namespace tiffany::http2 {

/// Serves one connection that speaks HTTP/2 from its first byte (the
/// client preface, which `first` begins with) until it closes.
///
/// The connection's task does all the socket I/O: it feeds what it reads to
/// nghttp2 (framing, HPACK, flow control, the protocol's checks) and writes
/// what nghttp2 has to send. Each request runs in a task of its own
/// (Http2Stream::run), started when its body is complete, or with its
/// header block when its handler streams the body (or it opens a WebSocket,
/// RFC 8441): that body's DATA goes to the stream's StreamInput. While any runs,
/// the connection waits for either its output or the socket's next bytes
/// (a watcher task polls the socket), so a reset or a new request is seen
/// at once.
///
/// Limits, each answered as RFC 9113 says: header lists past
/// max_header_list_size or max_header_count (431), targets past
/// max_uri_bytes (414) and bodies past max_body_bytes (413) are answered
/// and the stream reset; more than max_concurrent_streams is refused
/// (REFUSED_STREAM), the tasks of streams the client reset counting until
/// they have unwound; streams reset (by the client, or by us for its
/// errors) faster than kResetBurst then kResetsPerSecond, or more than
/// kMaxEmptyDataFrames DATA frames that carry nothing, end the connection
/// with GOAWAY ENHANCE_YOUR_CALM (Rapid Reset, CVE-2023-44487; empty-frame
/// floods); nghttp2 caps CONTINUATION frames (CVE-2024-27316 in httpd; nghttp2's CVE-2024-28182, fixed in Debian's 1.52 by backport) and the
/// acknowledgements a client that does not read can make us queue.
///
/// Memory: a whole request body is held, at most max_body_bytes a stream;
/// past kBodyBudget for the connection, only the oldest incomplete upload's
/// window is reopened, so the others wait (their body timeout paused) and
/// every upload still finishes in turn. A streamed body holds at most its
/// stream's window: it reopens only for what the handler took.
///
/// Timeouts: a header block or a body that stalls (header, body, body_total:
/// the stream gets 408, or the connection closes mid-block); a response
/// that waits on the client's window for `write` (the stream is reset); a
/// socket write that waits `write` (the connection closes); `keepalive`
/// with no stream open (GOAWAY, close). A drain sends GOAWAY at once, lets
/// the open streams finish, then closes.
class Http2Connection final : private DrainListener {
 public:
  static constexpr std::size_t kBodyBudget = 1024 * 1024;
  static constexpr std::uint32_t kResetBurst = 200;
  static constexpr std::uint32_t kResetsPerSecond = 100;
  static constexpr std::uint32_t kMaxEmptyDataFrames = 1000;

  /// `streams`: the listener's spare streams on this worker (it outlives the connection).
  Http2Connection(const http::HttpSite& site, StreamPool& streams);
  Http2Connection(const Http2Connection&) = delete;
  Http2Connection& operator=(const Http2Connection&) = delete;
  ~Http2Connection();

  /// Serves the connection until it ends; `first` holds its first bytes
  /// (the preface and what followed it), freed once fed. Always AfterBurst::close.
  Task<AfterBurst> serve(ByteStream& stream, ConnectionContext& context, std::string first);

  // ---- for its streams ----
  nghttp2_session* session() noexcept { return session_; }
  const std::string& peer() const noexcept { return *peer_; }
  bool tls() const noexcept { return tls_; }
  bool draining() const noexcept { return draining_; }
  /// A stream has output (or a whole response) for the session: wake the connection.
  void output_ready() { wake_.set(); }
  /// Queues RST_STREAM for `id` and remembers it (the client's late frames
  /// on it are ignored); a session that cannot queue it ends the connection.
  void reset_stream(std::int32_t id, std::uint32_t error_code);
  /// Counts a WebSocket over one of its streams as a connection of its own
  /// (into `slot`, left empty where the connection has no count): false
  /// when the worker's, listener's or client address's limit has no room.
  bool count_websocket(std::optional<ConnectionTracker::Slot>& slot) const;
  /// An nghttp2 call's result: a fatal one (no memory) ends the connection
  /// at its loop's next turn.
  void check(int result) noexcept;
  /// A stream's task ended.
  void task_done(Http2Stream& stream);
  /// Moves `stream` to `next` when StreamPhase allows it (may_follow); else
  /// a bug: logged (report_state_bug) and the connection ends with GOAWAY
  /// INTERNAL_ERROR. False then, and the phase stays.
  bool enter(Http2Stream& stream, StreamPhase next) noexcept;
  /// `size` bytes of `stream`'s streamed input were taken: its window reopens for them.
  void input_taken(Http2Stream& stream, std::size_t size);

 private:
  struct Entry {
    std::int32_t id = 0;
    std::shared_ptr<Http2Stream> stream;
    JoinHandle<void> task;
  };

  // nghttp2 callbacks (user_data is the connection).
  static int on_begin_frame(nghttp2_session* session, const nghttp2_frame_hd* frame, void* self);
  static int on_invalid_frame_recv(nghttp2_session*, const nghttp2_frame* frame, int error, void* self);
  static int on_begin_headers(nghttp2_session*, const nghttp2_frame* frame, void* self);
  static int on_header(nghttp2_session*, const nghttp2_frame* frame, const std::uint8_t* name, std::size_t name_length,
                       const std::uint8_t* value, std::size_t value_length, std::uint8_t flags, void* self);
  static int on_frame_recv(nghttp2_session*, const nghttp2_frame* frame, void* self);
  static int on_data_chunk_recv(nghttp2_session*, std::uint8_t flags, std::int32_t stream_id, const std::uint8_t* data,
                                std::size_t length, void* self);
  static int on_stream_close(nghttp2_session*, std::int32_t stream_id, std::uint32_t error_code, void* self);
  static int on_frame_send(nghttp2_session*, const nghttp2_frame* frame, void* self);

  /// Whether the connection's loop goes on after a step (feeding input, a wait, a deadline).
  enum class Serving : std::uint8_t {
    goes_on,  ///< back to the loop: send what is pending, wait again
    ends,     ///< the connection must end now (the peer left or failed, a fatal error, a stalled header block)
  };
  /// Whether send_pending() wrote everything the session had.
  enum class Sent : std::uint8_t {
    all,     ///< the session has nothing more to send
    failed,  ///< the socket failed or stalled past the write timeout, or the session failed: the connection ends
  };

  bool open_session();
  /// Feeds input to nghttp2 (in pieces, see depends_on_itself).
  Serving feed(std::string_view bytes);
  /// Feeds one piece to nghttp2; ends on a bad preface, no memory, or an
  /// earlier call that failed fatally (fail()). Another fatal error (a flood)
  /// queues GOAWAY and goes on, so that the loop sends it before closing.
  Serving feed_session(std::string_view bytes);
  /// A PRIORITY frame made stream `id` depend on itself (RFC 9113 §5.3.1).
  void depends_on_itself(std::int32_t id);
  /// Writes everything nghttp2 has to send.
  Task<Sent> send_pending();
  /// Waits for input, stream output, a timeout or the drain, and handles it.
  Task<Serving> wait_and_read();
  /// Reads what the socket holds, if anything, and feeds it (the watcher saw it readable).
  Task<Serving> read_and_feed();
  /// What the connection and its watcher task share; the watcher's frame
  /// holds it, so a poll that completes after the connection is gone finds
  /// `wake` null and touches nothing else.
  struct SocketWatch {
    WakeSignal wanted;           // the connection waits: poll the socket once
    bool readable = false;       // the poll saw input
    WakeSignal* wake = nullptr;  // the connection's; null once it is gone
  };
  static Task<void> watch_socket(std::shared_ptr<SocketWatch> watch, ByteStream& stream);
  /// Headers complete: checks them and either starts the stream's task or answers it.
  void headers_complete(Http2Stream& stream, bool end_stream);
  void start_task(Http2Stream& stream);
  /// Starts `stream`'s task now, its handler reading the body as it arrives.
  void stream_body(Http2Stream& stream);
  /// DATA for a streamed body: held for the handler within max_body_bytes.
  void receive_streamed(Http2Stream& stream, std::string_view bytes);
  /// END_STREAM: the request is complete (whole: its task starts).
  void request_ended(Http2Stream& stream);
  /// The connection answers `stream` itself (a limit), then resets it.
  void refuse(Http2Stream& stream, int status);
  /// Gives the client's window back for bytes we hold, within the budget.
  void release_window();
  /// `stream`'s body no longer counts toward the budget.
  void release_body(Http2Stream& stream) noexcept;
  /// Counts one reset toward Rapid Reset; false (and GOAWAY) past the limit.
  bool count_reset();
  void go_away(std::uint32_t error_code);
  /// nghttp2 failed (`result`): the connection ends without another word.
  void fail(int result) noexcept;
  /// The soonest time a stream's stage ends, or the idle timeout; nullopt: none.
  std::optional<Scheduler::Clock::time_point> next_deadline() const;
  /// A deadline passed: answers the streams whose stage ended; ends the
  /// connection when a header block is late (it cannot be interrupted).
  Serving on_deadline();
  void forget_if_done(Http2Stream& stream);
  /// After a write: notes which streams' output waits on the client's window (for the write timeout).
  void note_stalls();
  /// After a write that waited `write_wait` (input unread meanwhile): moves
  /// the streams' header, body and stall clocks by as much.
  void hold_input_clocks(Scheduler::Clock::duration write_wait) noexcept;
  void on_drain(std::chrono::milliseconds idle_grace) override;
  /// Cancels every stream task and detaches the streams (idempotent); the
  /// tasks still running go to ending_.
  void end_streams() noexcept;
  /// Waits for the stream tasks end_streams() canceled. Why: a WebSocket's
  /// session finishes through its stream, and a connection whose task ended
  /// first (a drain's last) could let the worker stop under them, as an
  /// HTTP/1.1 connection's task outlives its WebSocket.
  Task<void> wait_for_ended_streams();
  /// The stream nghttp2 holds as `id` (nghttp2's stream user data: no search), or null.
  Http2Stream* find(std::int32_t id) noexcept;
  /// `stream`'s entry (its slot), or null once it left; valid until streams_ changes.
  Entry* entry_of(Http2Stream& stream) noexcept;
  /// The oldest whole-body upload still arriving, or null.
  Http2Stream* oldest_upload() noexcept;
  /// Adds one to this listener's HTTP/2 `counter` (when metrics are on).
  void count(std::atomic<std::uint64_t> Http2Metrics::*counter) noexcept;

  const http::HttpSite& site_;
  StreamPool& stream_pool_;
  nghttp2_session* session_ = nullptr;
  ByteStream* stream_ = nullptr;      // serve()'s
  const std::string* peer_ = nullptr;  // serve()'s
  bool tls_ = false;
  const ConnectionTracker::Slot* slot_ = nullptr;  // serve()'s context's
  Deadline* deadline_ = nullptr;  // serve()'s: the connection's current wait
  // Why a vector: a connection holds at most max_concurrent_streams, usually
  // a few; each stream knows its slot and nghttp2 finds it by id (its user
  // data), so nothing searches it, and no hash table costs a node per stream.
  std::vector<Entry> streams_;
  // Why lists, not scans of streams_: with thousands of streams, every DATA
  // frame would look at all of them (release_window).
  std::vector<std::int32_t> held_;     // streams whose window we hold (window_held), in no order
  std::vector<std::int32_t> uploads_;  // whole-body uploads by age (ids only grow); done ones leave from the front
  std::size_t uploads_from_ = 0;       // uploads_' front
  std::size_t running_tasks_ = 0;
  std::size_t body_bytes_ = 0;    // request bodies held by the connection's streams
  WakeSignal wake_;               // stream output, a readable socket, the drain
  std::shared_ptr<SocketWatch> watch_;  // made with the watcher, on the first wait that needs it
  JoinHandle<void> watcher_;
  // Tasks of streams the client reset, still unwinding; shared with them, made on the first.
  std::shared_ptr<std::size_t> unwinding_;
  std::vector<JoinHandle<void>> ending_;  // stream tasks canceled by end_streams(), not yet ended
  bool waiting_for_client_ = false;  // in the read that waits for the client alone (no stream busy)
  bool draining_ = false;
  bool goaway_sent_ = false;
  bool failed_ = false;           // an nghttp2 call failed fatally: the connection ends
  bool terminating_ = false;      // a GOAWAY with an error went: the session closes once it is out
  bool registered_ = false;       // a drain listener of site_.tracker
  std::string out_;               // what goes in the next write
  Scheduler::Clock::time_point idle_since_{};
  double reset_tokens_ = kResetBurst;
  Scheduler::Clock::time_point reset_refilled_{};
  std::uint32_t empty_data_frames_ = 0;
  ClientStreamIds ids_;
  SelfDependencyScanner self_dependencies_;
};

}  // namespace tiffany::http2
