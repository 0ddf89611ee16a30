// Http2Connection: the session's callbacks, the read/write loop, limits and timeouts.
#include "server/http2/http2_connection.hpp"

#include <poll.h>

#include <algorithm>
#include <vector>

#include <tiffany/coro/join.hpp>
#include <tiffany/coro/task_canceled.hpp>
#include <tiffany/coro/yield.hpp>
#include <tiffany/handlers/server_stats.hpp>
#include <tiffany/reactor/readiness.hpp>

#include "handlers/engine/http2_metrics.hpp"
#include "handlers/engine/readiness.hpp"
#include "net/engine/tls/tls_stream.hpp"
#include "server/log/access_log.hpp"
#include "server/log/error_log.hpp"
#include "server/transport/lingering_close.hpp"
#include "server/transport/stage_timeout.hpp"

namespace tiffany::http2 {
namespace {

constexpr std::size_t kMaxWriteBytes = 64 * 1024;  // what one write gathers from the session
constexpr std::int32_t kConnectionWindow = 1 << 20;  // the connection-level window for request bodies

Http2Connection& connection_of(void* self) noexcept { return *static_cast<Http2Connection*>(self); }

std::string_view text(const std::uint8_t* bytes, std::size_t size) noexcept {
  return {reinterpret_cast<const char*>(bytes), size};
}

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

Task<bool> Http2Connection::serve(ByteStream& stream, ConnectionContext& context, std::string first) {
  stream_ = &stream;
  // Why once: the waits ask it every turn, and the stream's type does not change.
  tls_stream_ = dynamic_cast<tls::TlsStream*>(&stream);
  peer_ = &context.peer;
  tls_ = context.tls;
  socket_ = context.socket;
  slot_ = context.slot;
  deadline_ = &context.deadline;
  idle_since_ = Scheduler::current().now();
  reset_refilled_ = idle_since_;
  if (!open_session()) co_return false;
  count(&Http2Metrics::connections);
  if (site_.tracker != nullptr) {
    site_.tracker->add_drain_listener(*this);
    registered_ = true;
    draining_ = site_.tracker->draining();
  }
  bool going = feed(first);
  std::string().swap(first);  // Why: the connection may idle for long; its first burst is done with
  while (going && !failed_) {
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
    if (running_tasks_ > 0) co_await Yield{};
    const bool sent = co_await send_pending();
    if (!sent) break;
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
    going = co_await wait_and_read();
  }
  end_streams();
  deadline_->disarm();
  co_await wait_for_ended_streams();
  co_return false;
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

bool Http2Connection::feed(std::string_view bytes) {
  add_stat(Stat::bytes_received, static_cast<std::int64_t>(bytes.size()));
  for (;;) {
    // Why in pieces: nghttp2 must have read all before a self-dependent
    // PRIORITY frame when we judge it, so the stream's state is current.
    std::int32_t self_dependent = 0;
    const std::size_t piece = self_dependencies_.scan(bytes, self_dependent);
    if (!feed_session(bytes.substr(0, piece))) return false;
    if (self_dependent != 0) depends_on_itself(self_dependent);
    bytes.remove_prefix(piece);
    if (bytes.empty()) return true;
  }
}

bool Http2Connection::feed_session(std::string_view bytes) {
  const auto consumed =
      nghttp2_session_mem_recv(session_, reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  if (consumed >= 0) return !failed_;
  // Fatal only: a bad preface, a flood (acknowledgements a client that does
  // not read makes us queue, CONTINUATION frames past the cap), or memory.
  // Protocol errors are not here: nghttp2 queues their GOAWAY or RST_STREAM itself.
  const int error = static_cast<int>(consumed);
  if (error_log().enabled(LogLevel::debug)) {
    error_log().log(LogLevel::debug, "HTTP/2 connection from %s ended: %s", peer_->c_str(), nghttp2_strerror(error));
  }
  if (error == NGHTTP2_ERR_BAD_CLIENT_MAGIC || error == NGHTTP2_ERR_NOMEM) return false;
  // Why still a GOAWAY: the client learns why, and the loop sends it before closing.
  go_away(NGHTTP2_ENHANCE_YOUR_CALM);
  return true;
}

Task<bool> Http2Connection::send_pending() {
  for (;;) {
    out_.clear();
    while (out_.size() < kMaxWriteBytes) {
      const std::uint8_t* data = nullptr;
      const auto produced = nghttp2_session_mem_send(session_, &data);
      if (produced < 0) co_return false;
      if (produced == 0) break;
      out_.append(reinterpret_cast<const char*>(data), static_cast<std::size_t>(produced));
    }
    if (out_.empty()) co_return true;
    deadline_->rearm_after(site_.timeouts.write);
    const Timed<IoResult> write = co_await within(*deadline_, TimeoutStage::write, stream_->write(out_.data(), out_.size()));
    if (write.timed_out() || !*write) co_return false;  // a client that does not read, or gone
    add_stat(Stat::bytes_sent, static_cast<std::int64_t>(out_.size()));
  }
}

Task<bool> Http2Connection::wait_and_read() {
  const std::optional<Scheduler::Clock::time_point> until = next_deadline();
  if (until) {
    deadline_->rearm(*until);
  } else {
    deadline_->disarm();
  }
  if (draining_ && !goaway_sent_) co_return true;  // the drain began while we were busy
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
    if (read.timed_out()) co_return draining_ || on_deadline();
    const IoResult got = *read;
    if (!got || got.bytes() == 0) co_return false;
    co_return feed(input.bytes());
  }
  if (has_buffered_input()) co_return co_await read_and_feed();
  if (!wake_.is_set()) {
    if (watch_ == nullptr) {
      watch_ = std::make_shared<SocketWatch>();
      watch_->wake = &wake_;
      watcher_ = Scheduler::current().spawn(watch_socket(watch_, socket_));
    }
    if (!watch_->readable) watch_->wanted.set();
    const Timed<void> woken = co_await deadline_->guard(wake_.wait());
    if (woken.timed_out()) co_return draining_ || on_deadline();
  } else {
    co_await wake_.wait();  // clears it: what set it is handled below or by the loop
  }
  if (watch_ == nullptr || !watch_->readable) co_return true;  // a stream's output, or the drain: the loop sends it
  watch_->readable = false;
  co_return co_await read_and_feed();
}

bool Http2Connection::has_buffered_input() const noexcept {
  // Why: a TLS stream may hold decrypted or undecrypted bytes that no poll of the socket would announce.
  return tls_stream_ != nullptr && tls_stream_->has_buffered_input();
}

Task<bool> Http2Connection::read_and_feed() {
  // Why look first: the watcher's news may be stale (a read since took the
  // bytes), and a read that waits would hold back the streams' answers.
  if (!has_buffered_input()) {
    pollfd ready{socket_, POLLIN, 0};
    if (::poll(&ready, 1, 0) <= 0) co_return true;
  }
  // Why a deadline: the socket is readable, but a TLS record cut short waits here for its rest.
  deadline_->rearm_after(site_.timeouts.header);
  ReadLease input;
  const Timed<IoResult> read = co_await within(*deadline_, TimeoutStage::header, stream_->read_pooled(input));
  if (read.timed_out()) co_return false;
  const IoResult got = *read;
  if (!got || got.bytes() == 0) co_return false;
  co_return feed(input.bytes());
}

Task<void> Http2Connection::watch_socket(std::shared_ptr<SocketWatch> watch, int socket) {
  for (;;) {
    co_await watch->wanted.wait();
    (void)co_await ReadWait(socket);
    // Why look: a poll that completed just before the connection ended
    // resumes us with its result, not with the cancellation.
    if (watch->wake == nullptr) co_return;
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

int Http2Connection::on_begin_frame(nghttp2_session* session, const nghttp2_frame_hd* frame, void* self) {
  Http2Connection& connection = connection_of(self);
  // Why not after a GOAWAY: nghttp2 ignores the streams it did not take, so they are neither open nor closed.
  if (frame->type != NGHTTP2_HEADERS || connection.goaway_sent_) return 0;
  const bool open = nghttp2_session_find_stream(session, frame->stream_id) != nullptr;
  switch (connection.ids_.headers_begin(frame->stream_id, open)) {
    case ClientStreamIds::Verdict::go_on:
      return 0;
    case ClientStreamIds::Verdict::protocol_error:
      connection.go_away(NGHTTP2_PROTOCOL_ERROR);  // RFC 9113 §5.1.1
      return 0;
    case ClientStreamIds::Verdict::stream_closed:
      connection.go_away(NGHTTP2_STREAM_CLOSED);  // RFC 9113 §5.1
      return 0;
  }
  return 0;
}

int Http2Connection::on_invalid_frame_recv(nghttp2_session*, const nghttp2_frame* frame, int, void* self) {
  // Why: nghttp2 has just queued a RST_STREAM for a stream error (or ends the
  // connection); the client's next frames on that stream are to be ignored.
  if (frame->hd.stream_id != 0) connection_of(self).ids_.reset_sent(frame->hd.stream_id);
  return 0;
}

int Http2Connection::on_begin_headers(nghttp2_session* session, const nghttp2_frame* frame, void* self) {
  Http2Connection& connection = connection_of(self);
  if (frame->hd.type != NGHTTP2_HEADERS || frame->headers.cat != NGHTTP2_HCAT_REQUEST) return 0;
  connection.count(&Http2Metrics::streams);
  // Why: the tasks of streams the client reset still run until they have
  // unwound; counted toward max_concurrent_streams (nghttp2 counts open
  // streams only), resets cannot buy a client more concurrent work (Rapid Reset).
  const std::size_t unwinding = connection.unwinding_ != nullptr ? *connection.unwinding_ : 0;
  if (unwinding > 0 && connection.streams_.size() + 1 + unwinding > connection.site_.http2.max_concurrent_streams) {
    connection.reset_stream(frame->hd.stream_id, NGHTTP2_REFUSED_STREAM);
    (void)connection.count_reset();  // as a refusal of ours
    return 0;
  }
  std::shared_ptr<Http2Stream> stream = connection.stream_pool_.take(connection, frame->hd.stream_id);
  stream->opened = Scheduler::current().now();
  stream->slot = connection.streams_.size();
  connection.check(nghttp2_session_set_stream_user_data(session, frame->hd.stream_id, stream.get()));
  connection.streams_.push_back(Entry{frame->hd.stream_id, std::move(stream), {}});
  return 0;
}

int Http2Connection::on_frame_recv(nghttp2_session*, const nghttp2_frame* frame, void* self) {
  Http2Connection& connection = connection_of(self);
  const std::int32_t id = frame->hd.stream_id;
  const bool end_stream = (frame->hd.flags & NGHTTP2_FLAG_END_STREAM) != 0;
  switch (frame->hd.type) {
    case NGHTTP2_HEADERS: {
      Http2Stream* stream = connection.find(id);
      if (stream == nullptr) return 0;
      if (!stream->headers_done) {
        connection.headers_complete(*stream, end_stream);
      } else if (end_stream && !stream->refused && !stream->request_complete) {  // trailers end the request
        connection.request_ended(*stream);
      }
      return 0;
    }
    case NGHTTP2_DATA: {
      Http2Stream* stream = connection.find(id);
      if (frame->hd.length == 0 && !end_stream && ++connection.empty_data_frames_ > kMaxEmptyDataFrames) {
        connection.go_away(NGHTTP2_ENHANCE_YOUR_CALM);  // Why: each costs us work and the client nothing
        return 0;
      }
      if (stream == nullptr || !end_stream || stream->refused || stream->request_complete) return 0;
      connection.request_ended(*stream);
      return 0;
    }
    case NGHTTP2_RST_STREAM:
      connection.count(&Http2Metrics::resets_received);  // counted toward Rapid Reset when the stream closes
      return 0;
    default:
      return 0;
  }
}

int Http2Connection::on_data_chunk_recv(nghttp2_session* session, std::uint8_t, std::int32_t stream_id,
                                        const std::uint8_t* data, std::size_t length, void* self) {
  Http2Connection& connection = connection_of(self);
  // Why at once: the connection window is only throughput; each stream's
  // own window is what bounds what we hold (see release_window).
  connection.check(nghttp2_session_consume_connection(session, length));
  Http2Stream* stream = connection.find(stream_id);
  if (stream == nullptr || stream->refused) {
    connection.check(nghttp2_session_consume_stream(session, stream_id, length));
    return 0;
  }
  if (stream->body_streamed) {
    connection.receive_streamed(*stream, text(data, length));
    return 0;
  }
  std::string& body = stream->request().body;
  if (body.size() + length > connection.site_.limits.max_body_bytes) {
    connection.check(nghttp2_session_consume_stream(session, stream_id, length));
    connection.refuse(*stream, 413);
    return 0;
  }
  body.append(text(data, length));
  connection.body_bytes_ += length;
  stream->counted_body += length;
  stream->unconsumed += length;
  stream->last_input = Scheduler::current().now();
  if (!stream->window_held) {
    stream->window_held = true;
    connection.held_.push_back(stream_id);
  }
  connection.release_window();
  return 0;
}

int Http2Connection::on_stream_close(nghttp2_session*, std::int32_t stream_id, std::uint32_t error_code, void* self) {
  Http2Connection& connection = connection_of(self);
  Http2Stream* closing = connection.find(stream_id);
  Entry* found = closing == nullptr ? nullptr : connection.entry_of(*closing);
  if (found == nullptr) return 0;
  Entry& entry = *found;
  Http2Stream& stream = *entry.stream;
  stream.closed = true;
  connection.release_body(stream);
  if (stream.task_started && !stream.task_finished) {
    // The client reset it (or it ended otherwise) while the handler ran:
    // nobody waits for the answer. Why the bookkeeping here and not in the
    // task: a canceled task unwinds (or, not started, never runs) without
    // reaching task_done(), and detached it never calls back.
    if (connection.unwinding_ == nullptr) connection.unwinding_ = std::make_shared<std::size_t>(0);
    stream.count_unwinding(connection.unwinding_);
    stream.detach();
    entry.task.cancel();
    stream.task_finished = true;
    --connection.running_tasks_;
    if (connection.site_.access_log != nullptr) {
      connection.site_.access_log->record(stream.request(), stream.request().peer, {}, 499, 0,
                                          std::chrono::microseconds(0));
    }
  }
  // Why every reset, theirs and nghttp2's answers to their stream errors:
  // each may have cost a handler start ("MadeYouReset", CVE-2025-8671).
  if (error_code != NGHTTP2_NO_ERROR) (void)connection.count_reset();
  connection.forget_if_done(stream);
  connection.release_window();
  return 0;
}

int Http2Connection::on_frame_send(nghttp2_session*, const nghttp2_frame* frame, void* self) {
  Http2Connection& connection = connection_of(self);
  if (frame->hd.type == NGHTTP2_RST_STREAM) {
    connection.count(&Http2Metrics::resets_sent);
    connection.ids_.reset_sent(frame->hd.stream_id);  // Why: nghttp2 resets streams of its own accord too
  }
  if (frame->hd.type == NGHTTP2_GOAWAY) {
    const std::uint32_t code = frame->goaway.error_code;
    connection.count(code == NGHTTP2_NO_ERROR            ? &Http2Metrics::goaways_no_error
                     : code == NGHTTP2_ENHANCE_YOUR_CALM ? &Http2Metrics::goaways_calm
                                                         : &Http2Metrics::goaways_other);
  }
  const bool end_stream = (frame->hd.flags & NGHTTP2_FLAG_END_STREAM) != 0;
  if (!end_stream || (frame->hd.type != NGHTTP2_HEADERS && frame->hd.type != NGHTTP2_DATA)) return 0;
  Http2Stream* stream = connection.find(frame->hd.stream_id);
  if (stream != nullptr && !stream->request_complete) {
    // Why: we answered before the request ended (a limit): RFC 9113 §8.1
    // lets the server end the stream so, and the client stops sending.
    connection.reset_stream(frame->hd.stream_id, NGHTTP2_NO_ERROR);
  }
  return 0;
}

void Http2Connection::stream_body(Http2Stream& stream) {
  stream.body_streamed = true;
  http::Request& request = stream.request();
  // Why: handlers (the proxy forwarding it, say) tell a body of unknown
  // length by this field, as an HTTP/1.1 chunked upload gives it.
  if (!stream.websocket_connect && !request.headers.get("Content-Length")) {
    request.headers.add("Transfer-Encoding", "chunked");
  }
  // Why not a WebSocket's: its bytes are the session's, and a middleware
  // reading the body of what routes as a GET must find none (as over HTTP/1.1).
  if (!stream.websocket_connect) request.body_reader().attach(&stream);
  start_task(stream);
}

void Http2Connection::receive_streamed(Http2Stream& stream, std::string_view bytes) {
  StreamInput& input = stream.input();
  // Why the window stays shut for what is dropped: the client stops at its
  // window, and its END_STREAM or our answer's reset ends the stream.
  if (input.finished() || stream.task_finished) return;
  if (input.received() + bytes.size() > site_.limits.max_body_bytes && !stream.websocket_connect) {
    input.fail(http::BodyStatus::too_large);  // the handler's read says so, and the answer is 413
    return;
  }
  input.receive(bytes);
  body_bytes_ += bytes.size();
  stream.counted_body += bytes.size();
  stream.last_input = Scheduler::current().now();
}

void Http2Connection::input_taken(Http2Stream& stream, std::size_t size) {
  const std::size_t counted = std::min(size, stream.counted_body);
  stream.counted_body -= counted;
  body_bytes_ -= counted;
  check(nghttp2_session_consume_stream(session_, stream.id(), size));
  release_window();  // Why: under the budget again, whole-body uploads waiting on it may go on
  output_ready();    // Why: the WINDOW_UPDATE goes out with the connection's next write
}

void Http2Connection::request_ended(Http2Stream& stream) {
  stream.request_complete = true;
  if (stream.body_streamed) {
    stream.input().end();
    return;
  }
  start_task(stream);
  release_window();  // the oldest incomplete upload may be another stream now
}

void Http2Connection::start_task(Http2Stream& stream) {
  Entry* found = entry_of(stream);
  if (found == nullptr || stream.task_started) return;
  http::Request& request = stream.request();
  // Why: HTTP/2 need not say how long a body is, and handlers (the proxy
  // forwarding it, say) read its length as HTTP/1.1 gives it.
  if (!stream.body_streamed && !request.headers.get("Content-Length") &&
      (!request.body.empty() || request.method == "POST" || request.method == "PUT" || request.method == "PATCH")) {
    request.headers.add("Content-Length", std::to_string(request.body.size()));
  }
  stream.task_started = true;
  ++running_tasks_;
  found->task = Scheduler::current().spawn(Http2Stream::run(Http2Stream::TaskHold(found->stream)));
}

bool Http2Connection::count_websocket(std::optional<ConnectionTracker::Slot>& slot) const {
  if (slot_ == nullptr) return true;
  std::optional<ConnectionTracker::Slot> shared = slot_->share();
  if (!shared) return false;
  slot.emplace(std::move(*shared));  // Why emplace: a Slot moves, never assigns
  return true;
}

void Http2Connection::task_done(Http2Stream& stream) {
  stream.task_finished = true;
  --running_tasks_;
  release_body(stream);
  release_window();
  forget_if_done(stream);
}

void Http2Connection::refuse(Http2Stream& stream, int status) {
  stream.refused = true;
  release_body(stream);
  stream.request().body.clear();
  stream.unconsumed = 0;
  stream.answer_now(status);
  (void)count_reset();  // Why: a client making us refuse streams costs us like one resetting them
}

void Http2Connection::release_body(Http2Stream& stream) noexcept {
  // Why what was counted, not the body's size now: a handler may have taken the body (echo swaps it out).
  body_bytes_ -= stream.counted_body;
  stream.counted_body = 0;
}

void Http2Connection::release_window() {
  // Why body_bytes_: a stream whose window we hold holds body bytes (counted
  // until its request completes); none held, no window to give back.
  if (held_.empty() || body_bytes_ == 0) return;
  auto give_back = [this](Http2Stream& stream) {
    if (stream.unconsumed == 0) return;
    check(nghttp2_session_consume_stream(session_, stream.id(), stream.unconsumed));
    stream.unconsumed = 0;
    stream.last_input = Scheduler::current().now();  // Why: its body timer ran paused while we held it
  };
  // Why asked under the budget too: it drops the finished uploads ahead of the oldest.
  Http2Stream* oldest = oldest_upload();
  if (body_bytes_ > kBodyBudget) {
    // The oldest upload still arriving always gets its window back, so every
    // upload finishes in turn whatever the others hold (it stays in held_).
    if (oldest != nullptr) give_back(*oldest);
    return;
  }
  for (const std::int32_t id : held_) {
    Http2Stream* stream = find(id);
    if (stream == nullptr) continue;  // closed: nothing to give back
    give_back(*stream);
    stream->window_held = false;
  }
  held_.clear();
}

Http2Stream* Http2Connection::oldest_upload() noexcept {
  for (; uploads_from_ < uploads_.size(); ++uploads_from_) {
    Http2Stream* stream = find(uploads_[uploads_from_]);
    if (stream != nullptr && stream->headers_done && !stream->request_complete && !stream->refused &&
        !stream->body_streamed) {
      return stream;
    }
  }
  uploads_.clear();
  uploads_from_ = 0;
  return nullptr;
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
    if (!stream.headers_done) {
      consider(stream.opened + timeouts.header);
    } else if (!stream.request_complete && !stream.refused && !stream.body_streamed && stream.unconsumed == 0) {
      // Why not a streamed body: its handler's reads keep their own body timeouts (Http2Stream::read_body).
      consider(stream.last_input + timeouts.body);
      if (timeouts.body_total.count() > 0) consider(stream.body_began + timeouts.body_total);
    }
    if (stream.stalled_since) consider(*stream.stalled_since + timeouts.write);
  }
  return soonest;
}

bool Http2Connection::on_deadline() {
  const auto now = Scheduler::current().now();
  if (streams_.empty()) {
    if (now < idle_since_ + site_.timeouts.keepalive) return true;
    go_away(NGHTTP2_NO_ERROR);  // idle: the keep-alive timeout is a quiet close, as in HTTP/1.1
    return true;
  }
  const http::HttpTimeouts& timeouts = site_.timeouts;
  // Why pointers: nothing below removes an entry (nghttp2 closes streams only while it reads or writes).
  std::vector<Http2Stream*> late_bodies;
  std::vector<Http2Stream*> stalled;
  for (const Entry& entry : streams_) {
    Http2Stream& stream = *entry.stream;
    if (!stream.headers_done && now >= stream.opened + timeouts.header) {
      // Why the connection: a header block cannot be interrupted by a response.
      count_timeout(TimeoutStage::header);
      return false;
    }
    if (stream.headers_done && !stream.request_complete && !stream.refused && !stream.body_streamed &&
        stream.unconsumed == 0 &&
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
  return true;
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
      count(&Http2Metrics::stalls);
    }
  }
}

void Http2Connection::forget_if_done(Http2Stream& stream) {
  Entry* found = entry_of(stream);
  if (found == nullptr) return;
  if (!stream.closed || (stream.task_started && !stream.task_finished)) return;
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
    if (entry.stream->task_started && !entry.stream->task_finished) {
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
