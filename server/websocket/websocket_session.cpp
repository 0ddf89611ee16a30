// WebSocketSession: the reader and writer tasks, the queues between them and the handler, pings and the close handshake.
#include "server/websocket/websocket_session.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include <tiffany/coro/deadline.hpp>
#include <tiffany/coro/task_canceled.hpp>
#include <tiffany/http/utf8.hpp>

#include "coro/engine/done_mark.hpp"
#include "handlers/engine/websocket_metrics.hpp"
#include "http/engine/websocket/deflate_negotiation.hpp"
#include "http/engine/websocket/frame.hpp"
#include "net/engine/write_some.hpp"

namespace tiffany::http {
namespace {

using websocket::Opcode;

// The most one write takes, so its close_timeout is a limit on progress, not on a large queue.
constexpr std::size_t kWritePiece = 64 * 1024;


}  // namespace

WebSocketSession::WebSocketSession(ByteStream& stream, std::string early_input, websocket::UpgradeTerms terms,
                                   const WebSocketOptions& options, ConnectionTracker* tracker,
                                   WebSocketMetrics* metrics)
    : stream_(stream),
      held_input_(std::move(early_input)),
      terms_(std::move(terms)),
      options_(options),
      tracker_(tracker),
      metrics_(metrics),
      reader_(websocket::ReaderLimits{options.max_message_bytes, true, terms_.deflate.has_value()}),
      last_input_(Scheduler::current().now()) {}

WebSocketSession::~WebSocketSession() {
  if (listening_for_drain_) tracker_->remove_drain_listener(*this);
  if (started_ && metrics_ != nullptr) WebSocketMetrics::add(metrics_->freed);
}

void WebSocketSession::start() {
  started_ = true;
  if (metrics_ != nullptr) WebSocketMetrics::add(metrics_->connections);
  if (tracker_ != nullptr) {
    tracker_->add_drain_listener(*this);
    listening_for_drain_ = true;
  }
  reader_task_ = Scheduler::current().spawn(read_loop(shared_from_this()));
  writer_task_ = Scheduler::current().spawn(write_loop(shared_from_this()));
}

Task<void> WebSocketSession::read_loop(std::shared_ptr<WebSocketSession> self) {
  WebSocketSession& s = *self;
  const DoneMark done(s.reader_done_, s.closed_);
  while (!s.reader_.done() && !s.failed_ && !s.input_refused_) {
    if (s.inbox_.size() >= s.options_.receive_queue_messages) {
      // Why stop reading: the handler is behind; TCP slows the client instead of our memory growing.
      s.reader_paused_ = true;
      co_await s.inbox_room_.wait();
      s.reader_paused_ = false;
      s.last_input_ = Scheduler::current().now();  // the silence was ours
      continue;
    }
    if (!s.held_input_.empty()) {
      const std::string held = std::exchange(s.held_input_, {});
      s.consume(held);
      continue;
    }
    ReadLease input;
    const IoResult got = co_await s.stream_.read_pooled(input);
    if (!got || got.bytes() == 0) {
      s.fail(websocket::close_code::abnormal);  // gone without a close frame (§7.1.5)
      break;
    }
    s.last_input_ = Scheduler::current().now();
    s.ping_sent_.reset();  // any byte shows the peer is there
    s.consume(input.bytes());
  }
  s.inbox_ready_.set();
  s.writer_wake_.set();
}

void WebSocketSession::consume(std::string_view input) {
  while (!reader_.done() && !input_refused_) {
    if (inbox_.size() >= options_.receive_queue_messages) {
      // Why hold the rest: one read may carry many messages, and compressed ones may each
      // inflate to max_message_bytes; the inbox's bound holds only if parsing stops with it.
      held_input_.assign(input);
      return;
    }
    websocket::Event event = reader_.next(input);
    switch (event.kind) {
      case websocket::Event::Kind::need_more:
        return;
      case websocket::Event::Kind::message:
        // Why dropped after our close: nobody will receive it (receive() has ended).
        if (close_sent_ || failed_) break;
        take_message(event);
        break;
      case websocket::Event::Kind::ping:
        if (close_sent_ || failed_) break;
        if (queued_total_ - written_total_ > options_.max_queued_bytes) {
          // Why: a client that pings and never reads would have its pongs pile up without bound.
          refuse_input(websocket::close_code::policy_violation, "pings faster than their pongs are read");
          break;
        }
        {
          std::string pong;
          websocket::append_frame(pong, Opcode::pong, event.payload);
          enqueue(pong);
        }
        break;
      case websocket::Event::Kind::pong:
        break;
      case websocket::Event::Kind::close:
        close_received_ = true;
        if (close_code_ == 0) close_code_ = event.code;
        // Why echo the code: §5.5.1; a close without one is answered without one.
        send_close(event.code == websocket::close_code::no_status ? 0 : event.code, {});
        inbox_ready_.set();
        break;
      case websocket::Event::Kind::error:
        // Why the rule in the reason: it tells the client's developer what was wrong.
        if (close_code_ == 0) close_code_ = event.code;
        send_close(event.code, event.why);
        inbox_ready_.set();
        break;
    }
  }
}

void WebSocketSession::take_message(websocket::Event& event) {
  if (event.compressed) {
    std::string inflated;
    switch (inflater().inflate(event.payload, options_.max_message_bytes, inflated)) {
      case websocket::MessageInflater::Result::ok:
        break;
      case websocket::MessageInflater::Result::too_big:
        refuse_input(websocket::close_code::message_too_big,
                     "a message longer than " + std::to_string(options_.max_message_bytes) + " bytes once inflated");
        return;
      case websocket::MessageInflater::Result::corrupt:
        refuse_input(websocket::close_code::invalid_payload, "a compressed message that does not inflate");
        return;
    }
    if (event.text && !is_valid_utf8(inflated)) {
      refuse_input(websocket::close_code::invalid_payload, "a text message that is not UTF-8");
      return;
    }
    event.payload = std::move(inflated);
  }
  inbox_.push_back(WebSocketMessage{event.text, std::move(event.payload)});
  inbox_ready_.set();
  if (metrics_ != nullptr) WebSocketMetrics::add(metrics_->messages_received);
}

void WebSocketSession::refuse_input(std::uint16_t code, std::string_view why) {
  input_refused_ = true;
  if (close_code_ == 0) close_code_ = code;
  send_close(code, why);
}

websocket::MessageDeflater& WebSocketSession::deflater() {
  const websocket::DeflateAgreement& agreed = *terms_.deflate;
  const int level = std::clamp(options_.compression.level, 1, 9);
  if (!agreed.server_context_takeover) return websocket::MessageDeflater::shared(agreed.server_window_bits, level);
  if (!deflater_) deflater_ = std::make_unique<websocket::MessageDeflater>(agreed.server_window_bits, level, true);
  return *deflater_;
}

websocket::MessageInflater& WebSocketSession::inflater() {
  const websocket::DeflateAgreement& agreed = *terms_.deflate;
  if (!agreed.client_context_takeover) return websocket::MessageInflater::shared();
  // Why at least 9: a zlib sender asked for an 8-bit window uses 9; inflating with a larger window is always valid.
  if (!inflater_) inflater_ = std::make_unique<websocket::MessageInflater>(std::max(agreed.client_window_bits, 9), true);
  return *inflater_;
}

void WebSocketSession::append_message(std::string_view data, bool text) {
  const websocket::Opcode opcode = text ? Opcode::text : Opcode::binary;
  if (!terms_.deflate || data.size() < options_.compression.min_bytes) {
    websocket::append_frame(outbox_, opcode, data);
    return;
  }
  deflater().compress(data, compressed_);
  websocket::append_frame(outbox_, opcode, compressed_, true, true);
  if (compressed_.capacity() > 64 * 1024) std::string().swap(compressed_);  // a large message's scratch is not kept
}

void WebSocketSession::enqueue(std::string_view frame_bytes) {
  outbox_.append(frame_bytes);
  queued_total_ += frame_bytes.size();
  writer_wake_.set();
}

void WebSocketSession::send_close(std::uint16_t code, std::string_view reason) {
  if (close_sent_ || failed_) return;
  close_sent_ = true;
  if (close_code_ == 0) close_code_ = code == 0 ? websocket::close_code::no_status : code;
  std::string frame;
  if (code == 0) {
    websocket::append_frame(frame, Opcode::close, {});
  } else {
    websocket::append_close(frame, code, reason);
  }
  enqueue(frame);
  inbox_ready_.set();
}

void WebSocketSession::fail(std::uint16_t code) {
  if (failed_) return;
  failed_ = true;
  if (close_code_ == 0) close_code_ = code;
  inbox_ready_.set();
  inbox_room_.set();
  writer_wake_.set();
  closed_.set();
  wake_senders();
}

void WebSocketSession::wake_senders() noexcept {
  const bool all = failed_ || writer_done_;
  std::size_t kept = 0;
  for (SendWaiter& waiter : send_waiters_) {
    if (all || waiter.until <= written_total_) {
      waiter.wake.set_value();
    } else {
      send_waiters_[kept++] = std::move(waiter);
    }
  }
  send_waiters_.resize(kept);
}

Task<void> WebSocketSession::write_loop(std::shared_ptr<WebSocketSession> self) {
  WebSocketSession& s = *self;
  const DoneMark done(s.writer_done_, s.closed_);
  Deadline timer = Deadline::unarmed();
  while (!s.failed_) {
    if (s.outbox_.empty()) {
      // Why end after our close frame: nothing may follow it (§5.5.1).
      if (s.close_sent_ || s.stopping_) break;
      if (const auto when = s.next_timer()) {
        timer.rearm(*when);
      } else {
        timer.disarm();
      }
      const Timed<void> woken = co_await timer.guard(s.writer_wake_.wait());
      if (woken.timed_out()) s.on_timer();
      continue;
    }
    s.writing_.swap(s.outbox_);
    s.outbox_.clear();
    std::string_view left = s.writing_;
    while (!left.empty() && !s.failed_) {
      const std::size_t piece = std::min(left.size(), kWritePiece);
      timer.rearm_after(s.options_.close_timeout);  // a peer that takes nothing for this long is dropped
      const Timed<IoResult> wrote = co_await timer.guard(write_some(s.stream_, left.data(), piece));
      if (wrote.timed_out() || !*wrote) {
        s.fail(websocket::close_code::abnormal);
        break;
      }
      const auto sent = static_cast<std::size_t>((*wrote).bytes());
      left.remove_prefix(sent);
      s.written_total_ += sent;
      s.wake_senders();
    }
    // Why let go: a connection's largest message would otherwise stay held
    // twice (here and, after the next swap, in outbox_) for its whole life.
    s.writing_.clear();
    if (s.writing_.capacity() > kWritePiece) std::string().swap(s.writing_);
  }
  timer.disarm();
  s.writer_done_ = true;  // before waking the senders: they learn nothing more will be written
  s.wake_senders();
}

std::optional<Scheduler::Clock::time_point> WebSocketSession::next_timer() const noexcept {
  if (options_.ping_interval.count() <= 0 || close_sent_) return std::nullopt;
  if (ping_sent_) return *ping_sent_ + options_.pong_timeout;
  return last_input_ + options_.ping_interval;
}

void WebSocketSession::on_timer() {
  const auto now = Scheduler::current().now();
  if (reader_paused_) {
    last_input_ = now;  // the peer may be talking; we are not listening
    return;
  }
  if (ping_sent_) {
    if (now >= *ping_sent_ + options_.pong_timeout) fail(websocket::close_code::abnormal);
    return;
  }
  if (now >= last_input_ + options_.ping_interval) {
    std::string ping;
    websocket::append_frame(ping, Opcode::ping, {});
    enqueue(ping);
    ping_sent_ = now;
  }
}

Task<std::optional<WebSocketMessage>> WebSocketSession::receive() {
  for (;;) {
    if (!inbox_.empty()) {
      WebSocketMessage message = std::move(inbox_.front());
      inbox_.pop_front();
      inbox_room_.set();
      co_return message;
    }
    if (!is_open() || reader_done_) co_return std::nullopt;
    co_await inbox_ready_.wait();
  }
}

Task<Delivery> WebSocketSession::send(std::string_view data, bool text) {
  if (text && !is_valid_utf8(data)) throw std::invalid_argument("WebSocket::send: a text message must be valid UTF-8");
  if (!is_open() || writer_done_) co_return Delivery::closed;
  if (queued_total_ - written_total_ + data.size() > options_.max_queued_bytes) {
    // Why close: the peer reads slower than this connection is asked to
    // send, and waiting longer would hold memory for it without bound.
    send_close(websocket::close_code::policy_violation, "send queue over its limit");
    co_return Delivery::closed;
  }
  const std::size_t before = outbox_.size();
  append_message(data, text);
  queued_total_ += outbox_.size() - before;
  if (metrics_ != nullptr) WebSocketMetrics::add(metrics_->messages_sent);
  writer_wake_.set();
  const std::uint64_t end = queued_total_;
  if (end <= written_total_ + options_.send_buffer_bytes) co_return Delivery::sent;
  SendWaiter& waiter = send_waiters_.emplace_back();
  waiter.until = end - options_.send_buffer_bytes;
  Future<void> written = waiter.wake.future();
  co_await std::move(written);
  co_return failed_ ? Delivery::closed : Delivery::sent;
}

void WebSocketSession::close(std::uint16_t code, std::string_view reason) {
  if (!websocket::is_sendable_close_code(code)) {
    throw std::invalid_argument("WebSocket::close: " + std::to_string(code) + " is not a close code an endpoint sends");
  }
  send_close(code, reason);
}

void WebSocketSession::on_drain(std::chrono::milliseconds) {
  send_close(websocket::close_code::going_away, "server shutting down");
}

Task<void> WebSocketSession::finish(std::uint16_t code) {
  if (listening_for_drain_) {
    tracker_->remove_drain_listener(*this);
    listening_for_drain_ = false;
  }
  send_close(code, {});
  // Why empty the inbox: a reader paused on a full one would never read the
  // peer's close (nobody receives any more), and every close would wait out
  // close_timeout; messages after our close are dropped anyway.
  inbox_.clear();
  inbox_room_.set();
  // The handshake: our close frame out and the peer's in (the reader ends
  // on it), or a failure, within close_timeout.
  {
    const Deadline limit = Deadline::after(options_.close_timeout);
    try {
      while (!failed_ && !(reader_done_ && writer_done_)) {
        const Timed<void> woken = co_await limit.guard(closed_.wait());
        if (woken.timed_out()) break;
      }
    } catch (const TaskCanceled&) {
      // the connection is being stopped: end the tasks at once
    }
  }
  stopping_ = true;
  reader_task_.cancel();
  writer_task_.cancel();
  // Why wait for both, canceled or not: they use the stream, which goes when this returns.
  // A task canceled before it first ran ends without running (no DoneMark): finished() says so.
  while ((!reader_done_ && !reader_task_.finished()) || (!writer_done_ && !writer_task_.finished())) {
    try {
      co_await closed_.wait();
    } catch (const TaskCanceled&) {
      // canceled again: the tasks are ending all the same
    }
  }
  // Why release the handles: a finished task's frame lives until its handle
  // goes, and both frames hold this session (shared_ptr): kept, the session
  // and its tasks would keep each other until the scheduler is destroyed.
  reader_task_.reset();
  writer_task_.reset();
  if (metrics_ != nullptr) {
    WebSocketMetrics::add(metrics_->ended);
    metrics_->count_close(close_code_);
  }
}

}  // namespace tiffany::http
