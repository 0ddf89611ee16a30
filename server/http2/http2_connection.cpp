// Http2Connection: the session, the read/write loop, resets, limits and timeouts.
#include "server/http2/http2_connection.hpp"

#include <algorithm>
#include <vector>

#include <tiffany/coro/join.hpp>
#include <tiffany/coro/task_canceled.hpp>
#include <tiffany/coro/yield.hpp>
#include <tiffany/handlers/server_stats.hpp>
#include <tiffany/reactor/readiness.hpp>

#include "handlers/engine/http2_metrics.hpp"
#include "handlers/engine/readiness.hpp"
#include "net/engine/write_some.hpp"
#include "server/log/access_log.hpp"
#include "server/log/error_log.hpp"
#include "server/log/state_bug.hpp"
#include "server/transport/lingering_close.hpp"
#include "server/transport/stage_timeout.hpp"

namespace tiffany::http2 {
namespace {

constexpr std::size_t kMaxWriteBytes = 64 * 1024;  // what one write gathers from the session
constexpr std::int32_t kConnectionWindow = 1 << 20;  // the connection-level window for request bodies

}  // namespace

Http2Connection::Http2Connection(const http::HttpSite& site, StreamPool& streams)
    : site_(site), stream_pool_(streams) {}

Http2Connection::~Http2Connection() {
  end_streams();
  if (registered_) site_.tracker->remove_drain_listener(*this);
  if (session_ != nullptr) nghttp2_session_del(session_);
}

bool Http2Connection::open_session() {
  nghttp2_session_callbacks* callbacks = nullptr;
  if (nghttp2_session_callbacks_new(&callbacks) != 0) return false;
  nghttp2_session_callbacks_set_on_begin_frame_callback(callbacks, &on_begin_frame);
  nghttp2_session_callbacks_set_on_invalid_frame_recv_callback(callbacks, &on_invalid_frame_recv);
  nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks, &on_begin_headers);
  nghttp2_session_callbacks_set_on_header_callback(callbacks, &on_header);
  nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, &on_frame_recv);
  nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, &on_data_chunk_recv);
  nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, &on_stream_close);
  nghttp2_session_callbacks_set_on_frame_send_callback(callbacks, &on_frame_send);
  nghttp2_option* options = nullptr;
  if (nghttp2_option_new(&options) != 0) {
    nghttp2_session_callbacks_del(callbacks);
    return false;
  }
  // Why manual: the window reopens only as the connection's body budget allows (see release_window).
  nghttp2_option_set_no_auto_window_update(options, 1);
  nghttp2_option_set_max_deflate_dynamic_table_size(options, 4096);
  // Why: closed streams are kept only for the RFC 7540 priority tree, which
  // we turn off (nghttp2 then keeps none anyway); ids_ judges header blocks on them.
  nghttp2_option_set_no_closed_streams(options, 1);
  const int made = nghttp2_session_server_new2(&session_, callbacks, this, options);
  nghttp2_option_del(options);
  nghttp2_session_callbacks_del(callbacks);
  if (made != 0) return false;
  const http::Http2Settings& settings = site_.http2;
  const nghttp2_settings_entry entries[] = {
      {NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, settings.max_concurrent_streams},
      {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, settings.initial_window_size},
      {NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE, settings.max_header_list_size},
      {NGHTTP2_SETTINGS_ENABLE_PUSH, 0},
      // Why: RFC 9113 deprecates the priority tree; telling the client spares us its cost.
      {NGHTTP2_SETTINGS_NO_RFC7540_PRIORITIES, 1},
      // Why: a WebSocket over HTTP/2 is opened by an extended CONNECT (RFC 8441).
      {NGHTTP2_SETTINGS_ENABLE_CONNECT_PROTOCOL, 1},
  };
  if (nghttp2_submit_settings(session_, NGHTTP2_FLAG_NONE, entries, std::size(entries)) != 0) return false;
  return nghttp2_session_set_local_window_size(session_, NGHTTP2_FLAG_NONE, 0, kConnectionWindow) == 0;
}

Task<AfterBurst> Http2Connection::serve(ByteStream& stream, ConnectionContext& context, std::string first) {
  stream_ = &stream;
  peer_ = &context.peer;
  tls_ = context.tls;
  slot_ = context.slot;
  deadline_ = &context.deadline;
  idle_since_ = Scheduler::current().now();
  reset_refilled_ = idle_since_;
  if (!open_session()) co_return AfterBurst::close;
  count(&Http2Metrics::connections);
  if (site_.tracker != nullptr) {
    site_.tracker->add_drain_listener(*this);
    registered_ = true;
    draining_ = site_.tracker->draining();
  }
  Serving serving = feed(first);
  std::string().swap(first);  // Why: the connection may idle for long; its first burst is done with
  while (serving == Serving::goes_on && !failed_) {
    // Why closing too: during the drain delay HTTP/1.1 answers say
    // Connection: close; GOAWAY is HTTP/2's way to send the client elsewhere.
    // Why only once a stream came: a GOAWAY naming stream 0 would refuse the
    // first request of a client that sends its preface before it (Go's does),
    // and the delay is there to keep serving.
    if (!goaway_sent_ && (draining_ || (readiness() == Readiness::closing &&
                                        nghttp2_session_get_last_proc_stream_id(session_) > 0))) {
      go_away(NGHTTP2_NO_ERROR);
    }
    // Why first: the streams just started (or woken) answer now, and their
    // answers go out in the same write as what the session has to say.
    // Why disarmed: the deadline wait_and_read armed is for its guarded
    // waits; left armed over this yield, it would cancel the whole
    // connection (no GOAWAY, no count, no lingering close) instead.
    if (running_tasks_ > 0) {
      deadline_->disarm();
      co_await Yield{};
    }
    const Sent sent = co_await send_pending();
    if (sent == Sent::failed) break;
    note_stalls();
    const bool done = !nghttp2_session_want_read(session_) && !nghttp2_session_want_write(session_);
    if (done || (goaway_sent_ && streams_.empty())) {
      stream.finish();
      // Why linger: frames the client sent before it saw our GOAWAY would,
      // left unread at the close, make the kernel reset the connection and
      // could destroy the GOAWAY and the last answers before they are read.
      end_streams();
      const LingerLimits limits{site_.timeouts.linger, site_.timeouts.linger_read, site_.limits.max_linger_bytes};
      co_await lingering_close(stream, *deadline_, limits, site_.tracker);
      break;
    }
    serving = co_await wait_and_read();
  }
  end_streams();
  deadline_->disarm();
  co_await wait_for_ended_streams();
  co_return AfterBurst::close;
}

Task<void> Http2Connection::wait_for_ended_streams() {
  while (!ending_.empty()) {
    JoinHandle<void> task = std::move(ending_.back());
    ending_.pop_back();
    try {
      co_await Join(std::move(task));
    } catch (const TaskCanceled&) {
      // The stream's task was canceled (as asked), or this one was: it ends all the same.
    }
  }
}

Http2Connection::Serving Http2Connection::feed(std::string_view bytes) {
  add_stat(Stat::bytes_received, static_cast<std::int64_t>(bytes.size()));
  for (;;) {
    // Why in pieces: nghttp2 must have read all before a self-dependent
    // PRIORITY frame when we judge it, so the stream's state is current.
    std::int32_t self_dependent = 0;
    const std::size_t piece = self_dependencies_.scan(bytes, self_dependent);
    if (feed_session(bytes.substr(0, piece)) == Serving::ends) return Serving::ends;
    if (self_dependent != 0) depends_on_itself(self_dependent);
    bytes.remove_prefix(piece);
    if (!bytes.empty()) continue;
    // Why: a connection with no stream open is idle from the client's last
    // bytes (as nginx and h2o count it), not from its last stream's end: a
    // client still sending (a refused upload's DATA, WINDOW_UPDATE, PING) is
    // using it, and the requests behind those bytes would meet a GOAWAY.
    if (streams_.empty()) idle_since_ = Scheduler::current().now();
    return Serving::goes_on;
  }
}

Http2Connection::Serving Http2Connection::feed_session(std::string_view bytes) {
  const auto consumed =
      nghttp2_session_mem_recv(session_, reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  if (consumed >= 0) return failed_ ? Serving::ends : Serving::goes_on;
  // Fatal only: a bad preface, a flood (acknowledgements a client that does
  // not read makes us queue, CONTINUATION frames past the cap), or memory.
  // Protocol errors are not here: nghttp2 queues their GOAWAY or RST_STREAM itself.
  const int error = static_cast<int>(consumed);
  if (error_log().enabled(LogLevel::debug)) {
    error_log().log(LogLevel::debug, "HTTP/2 connection from %s ended: %s", peer_->c_str(), nghttp2_strerror(error));
  }
  if (error == NGHTTP2_ERR_BAD_CLIENT_MAGIC || error == NGHTTP2_ERR_NOMEM) return Serving::ends;
  // Why still a GOAWAY: the client learns why, and the loop sends it before closing.
  go_away(NGHTTP2_ENHANCE_YOUR_CALM);
  return Serving::goes_on;
}

Task<Http2Connection::Sent> Http2Connection::send_pending() {
  for (;;) {
    out_.clear();
    while (out_.size() < kMaxWriteBytes) {
      const std::uint8_t* data = nullptr;
      const auto produced = nghttp2_session_mem_send(session_, &data);
      if (produced < 0) co_return Sent::failed;
      if (produced == 0) break;
      out_.append(reinterpret_cast<const char*>(data), static_cast<std::size_t>(produced));
    }
    if (out_.empty()) co_return Sent::all;
    const auto write_began = Scheduler::current().now();
    // Why the deadline re-armed for each part the client takes: write_ms is
    // "each wait for the peer to take more" (write_some).
    for (std::string_view left = out_; !left.empty();) {
      deadline_->rearm_after(site_.timeouts.write);
      const Timed<IoResult> wrote =
          co_await within(*deadline_, TimeoutStage::write, write_some(*stream_, left.data(), left.size()));
      if (wrote.timed_out() || !*wrote) co_return Sent::failed;  // a client that does not read, or gone
      left.remove_prefix(static_cast<std::size_t>((*wrote).bytes()));
    }
    add_stat(Stat::bytes_sent, static_cast<std::int64_t>(out_.size()));
    hold_input_clocks(Scheduler::current().now() - write_began);
    // Why: a last stream's end was framed before its bytes went; the
    // connection is idle from when they have (a slow client's long write).
    if (streams_.empty()) idle_since_ = Scheduler::current().now();
  }
}

void Http2Connection::hold_input_clocks(Scheduler::Clock::duration write_wait) noexcept {
  if (write_wait <= Scheduler::Clock::duration::zero()) return;
  // Why: while a write waited for a slow reader, nothing the client sent was
  // read; the header, body and stall timeouts judge the client, so their
  // clocks stop meanwhile (else a client downloading slowly loses its
  // connection to the header timeout of its next request, whose block we
  // did not read, or a stream to a WINDOW_UPDATE waiting in our socket).
  for (const Entry& entry : streams_) {
    Http2Stream& stream = *entry.stream;
    if (stream.stalled_since) *stream.stalled_since += write_wait;
    if (stream.phase == StreamPhase::headers) stream.opened += write_wait;
    if (stream.phase == StreamPhase::uploading) {
      stream.last_input += write_wait;
      stream.body_began += write_wait;
    }
  }
}

Task<Http2Connection::Serving> Http2Connection::wait_and_read() {
  const std::optional<Scheduler::Clock::time_point> until = next_deadline();
  // Why answered here: a busy connection (its wake set by running streams)
  // takes none of the guarded waits below, so a stream's overdue timeout
  // would wait for a quiet moment that may not come.
  if (until && !streams_.empty() && *until <= Scheduler::current().now() && !draining_) co_return on_deadline();
  if (until) {
    deadline_->rearm(*until);
  } else {
    deadline_->disarm();
  }
  if (draining_ && !goaway_sent_) co_return Serving::goes_on;  // the drain began while we were busy
  if (running_tasks_ == 0 && !wake_.is_set()) {
    // Nothing of ours is under way: wait for the client alone.
    // Why none kept: an idle connection may stay so for long, and a burst's
    // answers can fill tens of KiB; HTTP/1.1's idle connections hold no buffer either.
    if (streams_.empty()) std::string().swap(out_);
    ReadLease input;
    waiting_for_client_ = true;
    const Timed<IoResult> read = co_await deadline_->guard(stream_->read_pooled(input));
    waiting_for_client_ = false;
    if (watch_ != nullptr) watch_->readable = false;  // Why: whatever the watcher saw, this read took it
    if (read.timed_out()) co_return draining_ ? Serving::goes_on : on_deadline();
    const IoResult got = *read;
    if (!got || got.bytes() == 0) co_return Serving::ends;
    co_return feed(input.bytes());
  }
  // Why: a TLS stream may hold decrypted or undecrypted bytes that no poll of the socket would announce.
  if (stream_->has_buffered_input()) co_return co_await read_and_feed();
  if (!wake_.is_set()) {
    if (watch_ == nullptr) {
      watch_ = std::make_shared<SocketWatch>();
      watch_->wake = &wake_;
      watcher_ = Scheduler::current().spawn(watch_socket(watch_, *stream_));
    }
    if (!watch_->readable) watch_->wanted.set();
    const Timed<void> woken = co_await deadline_->guard(wake_.wait());
    if (woken.timed_out()) co_return draining_ ? Serving::goes_on : on_deadline();
  } else {
    co_await wake_.wait();  // clears it: what set it is handled below or by the loop
  }
  // Not readable: a stream's output, or the drain, woke us; the loop sends it.
  if (watch_ == nullptr || !watch_->readable) co_return Serving::goes_on;
  watch_->readable = false;
  co_return co_await read_and_feed();
}

Task<Http2Connection::Serving> Http2Connection::read_and_feed() {
  // Why look first: the watcher's news may be stale (a read since took the
  // bytes), and a read that waits would hold back the streams' answers.
  if (!stream_->input_ready()) co_return Serving::goes_on;
  // Why a deadline: the socket is readable, but a TLS record cut short waits here for its rest.
  deadline_->rearm_after(site_.timeouts.header);
  ReadLease input;
  const Timed<IoResult> read = co_await within(*deadline_, TimeoutStage::header, stream_->read_pooled(input));
  if (read.timed_out()) co_return Serving::ends;
  const IoResult got = *read;
  if (!got || got.bytes() == 0) co_return Serving::ends;
  co_return feed(input.bytes());
}

Task<void> Http2Connection::watch_socket(std::shared_ptr<SocketWatch> watch, ByteStream& stream) {
  for (;;) {
    co_await watch->wanted.wait();
    const IoResult ready = co_await stream.wait_readable();
    // Why look: a poll that completed just before the connection ended
    // resumes us with its result, not with the cancellation.
    if (watch->wake == nullptr) co_return;
    // A stream that cannot be watched (no socket) or a failed socket: the
    // streams' output and the deadlines still wake the connection, and its
    // next read finds what the client sent or the failure.
    if (!ready) co_return;
    watch->readable = true;
    watch->wake->set();
  }
}

void Http2Connection::depends_on_itself(std::int32_t id) {
  if (goaway_sent_) return;
  if (nghttp2_session_find_stream(session_, id) != nullptr) {
    reset_stream(id, NGHTTP2_PROTOCOL_ERROR);  // RFC 9113 §5.3.1
    return;
  }
  // Why the connection for an idle or closed stream: no RST_STREAM may go on
  // one (§6.4, §5.1), and §5.4.1 lets a stream error end the connection.
  go_away(NGHTTP2_PROTOCOL_ERROR);
}

void Http2Connection::reset_stream(std::int32_t id, std::uint32_t error_code) {
  ids_.reset_sent(id);
  if (nghttp2_submit_rst_stream(session_, NGHTTP2_FLAG_NONE, id, error_code) != 0) go_away(NGHTTP2_INTERNAL_ERROR);
}

bool Http2Connection::count_reset() {
  const auto now = Scheduler::current().now();
  const double seconds = std::chrono::duration<double>(now - reset_refilled_).count();
  reset_refilled_ = now;
  reset_tokens_ = std::min<double>(kResetBurst, reset_tokens_ + seconds * kResetsPerSecond);
  if (reset_tokens_ >= 1) {
    reset_tokens_ -= 1;
    return true;
  }
  if (!goaway_sent_ && error_log().enabled(LogLevel::warn)) {
    error_log().log(LogLevel::warn, "HTTP/2 client %s reset streams too fast; GOAWAY ENHANCE_YOUR_CALM",
                    peer_->c_str());
  }
  go_away(NGHTTP2_ENHANCE_YOUR_CALM);
  return false;
}

void Http2Connection::go_away(std::uint32_t error_code) {
  if (terminating_ || (goaway_sent_ && error_code == NGHTTP2_NO_ERROR)) return;
  goaway_sent_ = true;
  terminating_ = error_code != NGHTTP2_NO_ERROR;
  const int queued = error_code == NGHTTP2_NO_ERROR
                         ? nghttp2_submit_goaway(session_, NGHTTP2_FLAG_NONE,
                                                 nghttp2_session_get_last_proc_stream_id(session_), NGHTTP2_NO_ERROR,
                                                 nullptr, 0)
                         : nghttp2_session_terminate_session(session_, error_code);  // closes once the GOAWAY is out
  // Why any failure: a GOAWAY that cannot go leaves nothing to wait for.
  if (queued != 0) fail(queued);
}

void Http2Connection::check(int result) noexcept {
  // Why only fatal ones: the others say a stream is gone or has nothing deferred, which is no fault of ours.
  if (result != 0 && nghttp2_is_fatal(result) != 0) fail(result);
}

void Http2Connection::fail(int result) noexcept {
  if (!failed_ && error_log().enabled(LogLevel::warn)) {
    error_log().log(LogLevel::warn, "HTTP/2 connection from %s ended: %s", peer_->c_str(), nghttp2_strerror(result));
  }
  failed_ = true;
  wake_.set();
}

std::optional<Scheduler::Clock::time_point> Http2Connection::next_deadline() const {
  std::optional<Scheduler::Clock::time_point> soonest;
  auto consider = [&soonest](Scheduler::Clock::time_point when) {
    if (!soonest || when < *soonest) soonest = when;
  };
  if (streams_.empty()) {
    consider(idle_since_ + site_.timeouts.keepalive);
    return soonest;
  }
  const http::HttpTimeouts& timeouts = site_.timeouts;
  for (const Entry& entry : streams_) {
    const Http2Stream& stream = *entry.stream;
    if (stream.phase == StreamPhase::headers) {
      consider(stream.opened + timeouts.header);
    } else if (stream.phase == StreamPhase::uploading && stream.unconsumed == 0) {
      // Why not a streamed body: its handler's reads keep their own body timeouts (Http2Stream::read_body).
      consider(stream.last_input + timeouts.body);
      if (timeouts.body_total.count() > 0) consider(stream.body_began + timeouts.body_total);
    }
    if (stream.stalled_since) consider(*stream.stalled_since + timeouts.write);
  }
  return soonest;
}

Http2Connection::Serving Http2Connection::on_deadline() {
  const auto now = Scheduler::current().now();
  if (streams_.empty()) {
    if (now < idle_since_ + site_.timeouts.keepalive) return Serving::goes_on;
    go_away(NGHTTP2_NO_ERROR);  // idle: the keep-alive timeout is a quiet close, as in HTTP/1.1
    return Serving::goes_on;
  }
  const http::HttpTimeouts& timeouts = site_.timeouts;
  // Why pointers: nothing below removes an entry (nghttp2 closes streams only while it reads or writes).
  std::vector<Http2Stream*> late_bodies;
  std::vector<Http2Stream*> stalled;
  for (const Entry& entry : streams_) {
    Http2Stream& stream = *entry.stream;
    if (stream.phase == StreamPhase::headers && now >= stream.opened + timeouts.header) {
      // Why the connection: a header block cannot be interrupted by a response.
      count_timeout(TimeoutStage::header);
      return Serving::ends;
    }
    if (stream.phase == StreamPhase::uploading && stream.unconsumed == 0 &&
        (now >= stream.last_input + timeouts.body ||
         (timeouts.body_total.count() > 0 && now >= stream.body_began + timeouts.body_total))) {
      late_bodies.push_back(&stream);
    }
    if (stream.stalled_since && now >= *stream.stalled_since + timeouts.write) stalled.push_back(&stream);
  }
  for (Http2Stream* stream : late_bodies) {
    count_timeout(TimeoutStage::body);
    refuse(*stream, 408);
  }
  for (Http2Stream* stream : stalled) {
    count_timeout(TimeoutStage::write);
    stream->stalled_since.reset();
    stream->mark_reset();
    reset_stream(stream->id(), NGHTTP2_CANCEL);
  }
  return Serving::goes_on;
}

void Http2Connection::note_stalls() {
  const bool connection_shut = nghttp2_session_get_remote_window_size(session_) <= 0;
  for (Entry& entry : streams_) {
    Http2Stream& stream = *entry.stream;
    const bool waiting = stream.has_output() &&
                         (connection_shut || nghttp2_session_get_stream_remote_window_size(session_, entry.id) <= 0);
    if (!waiting) {
      stream.stalled_since.reset();
    } else if (!stream.stalled_since) {
      stream.stalled_since = Scheduler::current().now();
      stream.taken_when_stalled = stream.output_taken;
      count(&Http2Metrics::stalls);
    } else if (stream.output_taken != stream.taken_when_stalled) {
      // Why anew: the window opened and shut again between two looks (a
      // client whose window is smaller than what one round trip carries,
      // every time); write_ms bounds a wait without progress, not a download.
      stream.stalled_since = Scheduler::current().now();
      stream.taken_when_stalled = stream.output_taken;
    }
  }
}

bool Http2Connection::enter(Http2Stream& stream, StreamPhase next) noexcept {
  if (change_phase(stream.phase, next, "an HTTP/2 stream")) return true;
  go_away(NGHTTP2_INTERNAL_ERROR);
  return false;
}

void Http2Connection::forget_if_done(Http2Stream& stream) {
  Entry* found = entry_of(stream);
  if (found == nullptr) return;
  if (!stream.closed || stream.phase == StreamPhase::running) return;
  found->task.reset();  // Why first: a finished task's frame holds the stream until its handle lets it go
  stream_pool_.give(std::move(found->stream));
  if (found != &streams_.back()) {
    *found = std::move(streams_.back());
    found->stream->slot = static_cast<std::size_t>(found - streams_.data());
  }
  streams_.pop_back();
  if (streams_.empty()) {
    idle_since_ = Scheduler::current().now();
    held_.clear();  // Why: what they name is gone
    uploads_.clear();
    uploads_from_ = 0;
  }
}

void Http2Connection::on_drain(std::chrono::milliseconds) {
  draining_ = true;
  wake_.set();
  // Why: a connection waiting for its client alone waits in a read; ending
  // that wait now sends the GOAWAY at once, not at the idle timeout.
  if (waiting_for_client_) deadline_->rearm(Scheduler::current().now());
}

void Http2Connection::end_streams() noexcept {
  for (Entry& entry : streams_) {
    // Why: find() must not reach a stream let go here through nghttp2 (fails harmlessly once it closed).
    if (session_ != nullptr) check(nghttp2_session_set_stream_user_data(session_, entry.id, nullptr));
    entry.stream->detach();
    if (entry.stream->phase == StreamPhase::running) {
      entry.task.cancel();
      ending_.push_back(std::move(entry.task));
    }
  }
  streams_.clear();
  running_tasks_ = 0;
  if (watch_ != nullptr) watch_->wake = nullptr;
  watcher_.cancel();
}

void Http2Connection::count(std::atomic<std::uint64_t> Http2Metrics::*counter) noexcept {
  if (site_.http2_metrics != nullptr) Http2Metrics::add(site_.http2_metrics->*counter);
}

Http2Stream* Http2Connection::find(std::int32_t id) noexcept {
  auto* stream = static_cast<Http2Stream*>(nghttp2_session_get_stream_user_data(session_, id));
  // Why checked against its slot: end_streams() lets the streams go while nghttp2 still names them.
  return stream != nullptr && entry_of(*stream) != nullptr ? stream : nullptr;
}

Http2Connection::Entry* Http2Connection::entry_of(Http2Stream& stream) noexcept {
  if (stream.slot >= streams_.size() || streams_[stream.slot].stream.get() != &stream) return nullptr;
  return &streams_[stream.slot];
}

}  // namespace tiffany::http2
