// WebSocketSession: one accepted WebSocket connection: its reader and writer tasks, queues, pings and close handshake.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <tiffany/coro/promise.hpp>
#include <tiffany/coro/scheduler.hpp>
#include <tiffany/coro/task.hpp>
#include <tiffany/coro/wake_signal.hpp>
#include <tiffany/http/websocket.hpp>
#include <tiffany/net/byte_stream.hpp>

#include "http/engine/websocket/connection_upgrade.hpp"
#include "http/engine/websocket/message_deflate.hpp"
#include "http/engine/websocket/message_reader.hpp"
#include "server/transport/connection_tracker.hpp"

namespace tiffany {
struct WebSocketMetrics;
}

namespace tiffany::http {

/// The server's side of a WebSocket connection over a ByteStream, after
/// the 101. Two tasks of its own do all I/O, so the handler's waits can be
/// canceled without cutting a frame:
///  - the reader reads frames (MessageReader), queues whole messages for
///    receive() (then stops reading while receive_queue_messages wait:
///    back-pressure by TCP), answers pings, and answers a close;
///  - the writer writes what send(), the reader and close() queued, whole
///    frames in order, each write under close_timeout for progress; while
///    it has nothing to write it keeps the ping timer.
/// The close handshake (RFC 6455 §7): whoever closes first sends a close
/// frame; the other's close frame ends it; the server then closes TCP. A
/// protocol error closes with its code without waiting (§7.1.7).
///
/// Lifetime: made by the HTTP connection (shared: the tasks hold it too),
/// start()ed, handed to the handler, then finish()ed by the connection
/// after the handler returns, which waits for the handshake (up to
/// close_timeout) and for both tasks, and lets their frames go: the
/// session is freed when the connection drops its pointer. Single-threaded:
/// the worker's.
class WebSocketSession final : public WebSocket,
                               public DrainListener,
                               public std::enable_shared_from_this<WebSocketSession> {
 public:
  /// `early_input`: bytes that came after the handshake request in its read
  /// (the client's first frames). `terms`: the subprotocol and
  /// permessage-deflate agreed. `tracker`: told of a drain (1001); `metrics`:
  /// the listener's counters on this worker; either may be null.
  WebSocketSession(ByteStream& stream, std::string early_input, websocket::UpgradeTerms terms,
                   const WebSocketOptions& options, ConnectionTracker* tracker, WebSocketMetrics* metrics);
  ~WebSocketSession() override;

  /// Spawns the reader and writer on the current scheduler.
  void start();
  /// After the handler: closes with `code` if still open, waits for the
  /// close handshake within close_timeout, then ends both tasks.
  Task<void> finish(std::uint16_t code);

  Task<std::optional<WebSocketMessage>> receive() override;
  Task<Delivery> send(std::string_view data, bool text) override;
  void close(std::uint16_t code, std::string_view reason) override;
  bool is_open() const noexcept override { return !close_sent_ && !close_received_ && !failed_; }
  std::uint16_t close_code() const noexcept override { return close_code_; }
  std::string_view subprotocol() const noexcept override { return terms_.subprotocol; }

  /// DrainListener: the server shuts down: close with 1001 Going Away.
  void on_drain(std::chrono::milliseconds idle_grace) override;

  /// Bytes the writer has put on the wire (for the access log).
  std::uint64_t bytes_written() const noexcept { return written_total_; }

 private:
  static Task<void> read_loop(std::shared_ptr<WebSocketSession> self);
  static Task<void> write_loop(std::shared_ptr<WebSocketSession> self);
  /// Feeds `input` to the frame reader and acts on each event.
  void consume(std::string_view input);
  /// A whole message in: inflated and checked when compressed, then queued for receive().
  void take_message(websocket::Event& event);
  /// Input broke a rule the frame reader cannot see (an inflated size or
  /// its UTF-8): close with `code`, read nothing more.
  void refuse_input(std::uint16_t code, std::string_view why);
  /// Appends `data` as one message's frame to outbox_, compressed when agreed and worth it.
  void append_message(std::string_view data, bool text);
  websocket::MessageDeflater& deflater();
  websocket::MessageInflater& inflater();
  /// Queues a frame for the writer (control frames and messages alike).
  void enqueue(std::string_view frame_bytes);
  /// Queues our close frame, once.
  void send_close(std::uint16_t code, std::string_view reason);
  /// The connection cannot go on (a write failed or stalled, the peer
  /// vanished, a ping went unanswered): wakes every waiter, queues nothing more.
  void fail(std::uint16_t code);
  /// The writer's timer: when a ping is due, or when the pong is overdue.
  std::optional<Scheduler::Clock::time_point> next_timer() const noexcept;
  void on_timer();
  void wake_senders() noexcept;

  ByteStream& stream_;
  std::string held_input_;  // read, not yet parsed: the handshake's leftovers, or what follows a message that filled the inbox
  websocket::UpgradeTerms terms_;
  WebSocketOptions options_;
  ConnectionTracker* tracker_;
  WebSocketMetrics* metrics_;
  websocket::MessageReader reader_;
  // permessage-deflate with context takeover: this connection's own (made on first use).
  std::unique_ptr<websocket::MessageDeflater> deflater_;
  std::unique_ptr<websocket::MessageInflater> inflater_;
  std::string compressed_;  // scratch: a message being compressed
  bool input_refused_ = false;

  // The handler's side.
  std::deque<WebSocketMessage> inbox_;
  WakeSignal inbox_ready_;  // a message or the end, for receive()
  WakeSignal inbox_room_;   // receive() took one, for the reader
  struct SendWaiter {
    std::uint64_t until;  // wakes once written_total_ reaches it
    Promise<void> wake;
  };
  std::vector<SendWaiter> send_waiters_;

  // The writer's side.
  std::string outbox_;   // frames queued, not yet taken by the writer
  std::string writing_;  // the frames being written
  std::uint64_t queued_total_ = 0;   // bytes ever queued
  std::uint64_t written_total_ = 0;  // bytes ever written
  WakeSignal writer_wake_;

  // Liveness.
  Scheduler::Clock::time_point last_input_;
  std::optional<Scheduler::Clock::time_point> ping_sent_;  // a ping waits for any input since

  // State.
  bool close_sent_ = false;
  bool close_received_ = false;
  bool failed_ = false;
  bool reader_done_ = false;
  bool reader_paused_ = false;  // the inbox is full: nothing is read until receive() takes one
  bool writer_done_ = false;
  bool stopping_ = false;  // finish(): the writer ends once its queue is empty
  std::uint16_t close_code_ = 0;
  bool listening_for_drain_ = false;
  bool started_ = false;  // counted in metrics_->connections; the destructor counts it freed
  WakeSignal closed_;  // the reader or writer ended: for finish()
  JoinHandle<void> reader_task_;
  JoinHandle<void> writer_task_;
};

}  // namespace tiffany::http
