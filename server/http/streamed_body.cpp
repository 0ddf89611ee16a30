// HttpConnection's streamed request bodies: read as the handler asks, 100-continue, the unread rest.
#include <tiffany/coro/deadline.hpp>
#include <tiffany/handlers/server_stats.hpp>

#include "server/http/http_connection.hpp"
#include "server/transport/connection_tracker.hpp"
#include "server/log/state_bug.hpp"
#include "server/transport/stage_timeout.hpp"

namespace tiffany::http {

void HttpConnection::begin_streamed_body(ReadLease& input, std::string_view& pending) {
  parser_.stream_body();
  input_ = &input;
  pending_ = &pending;
  body_state_ = BodyStatus::data;
  body_error_status_ = 0;
  // Why taken now: in whole-body mode the serve loop sends it before reading;
  // here only the handler's first read may.
  enter(parser_.take_continue_request() ? BodyPhase::uninvited : BodyPhase::streaming);
  parser_.request().body_reader().attach(this);
}

void HttpConnection::enter(BodyPhase next) noexcept {
  if (!change_phase(body_phase_, next, "an HTTP/1.1 request body")) close_after_response();
}

Task<BodyChunk> HttpConnection::read_body() {
  if (body_phase_ == BodyPhase::none) co_return BodyChunk(BodyStatus::end);
  if (body_state_ != BodyStatus::data) co_return BodyChunk(body_state_);
  if (body_phase_ == BodyPhase::uninvited) {
    enter(BodyPhase::streaming);
    // Why only now (RFC 9110 §10.1.1): the client holds the body back until
    // invited, so a handler that answers without reading never receives it.
    out_ += "HTTP/1.1 100 Continue\r\n\r\n";
    const Flushed invited = co_await flush();
    if (invited == Flushed::failed) {
      body_state_ = BodyStatus::peer_gone;
      co_return BodyChunk(body_state_);
    }
  }
  for (;;) {
    // Why fed even with no bytes after a piece: the piece may have been the
    // last of a sized body, and only parsing on tells its end.
    if (!pending_->empty() || parser_.after_piece()) {
      const RequestParser::Result parsed = parser_.feed(*pending_);
      pending_->remove_prefix(parsed.consumed);
      if (parsed.event == RequestParser::Event::body_piece) co_return BodyChunk(BodyStatus::data, parser_.body_piece());
      if (parsed.event == RequestParser::Event::request_ready) {
        // What follows in *pending_ is the next pipelined request's, for serve().
        body_state_ = BodyStatus::end;
        if (body_phase_ != BodyPhase::dropping) watch_client_if_wanted();  // the socket is free now
        co_return BodyChunk(body_state_);
      }
      if (parsed.event == RequestParser::Event::error) {
        body_error_status_ = parser_.error_status();
        body_state_ = body_error_status_ == 413 ? BodyStatus::too_large : BodyStatus::bad_framing;
        pending_->remove_prefix(pending_->size());  // nothing more of this connection is parsed
        co_return BodyChunk(body_state_);
      }
    }
    // Every byte read is parsed: read more, under the body's timeouts
    // (each read, and the whole body), then back to the handler's.
    input_->reset();  // the buffer goes back before the wait
    if (buffered_output() > 0) {
      // Why: answers to requests pipelined before this one must not wait
      // for the whole upload; their client may wait for them before sending it.
      const Flushed flushed = co_await flush();
      if (flushed == Flushed::failed) {
        body_state_ = BodyStatus::peer_gone;
        co_return BodyChunk(body_state_);
      }
    }
    const auto outer = deadline_->armed_until();
    arm_read_deadline();
    const Timed<IoResult> read = co_await read_body_bytes();
    deadline_->restore(outer);
    if (read.timed_out()) {
      body_error_status_ = 408;
      body_state_ = BodyStatus::timed_out;
      co_return BodyChunk(body_state_);
    }
    const IoResult got = *read;
    if (!got || got.bytes() == 0) {  // no request body is ended by a close: cut short
      body_state_ = BodyStatus::peer_gone;
      co_return BodyChunk(body_state_);
    }
    add_stat(Stat::bytes_received, static_cast<std::int64_t>(got.bytes()));
    *pending_ = input_->bytes();
  }
}

Task<Timed<IoResult>> HttpConnection::read_body_bytes() {
  if (body_phase_ != BodyPhase::dropping || site_.tracker == nullptr) {
    Timed<IoResult> read = co_await within(*deadline_, TimeoutStage::body, stream_->read_pooled(*input_));
    co_return read;
  }
  // Why a membership marked idle: the answer is out and this connection
  // waits on the peer only to serve a next request, which a drain would not
  // serve. A drain gives the wait its idle grace, as to a connection between
  // requests, instead of letting a client that stopped sending hold the
  // shutdown until drain_timeout_ms.
  ConnectionTracker::Membership waiting(*site_.tracker, *deadline_);
  waiting.set_idle(true);
  Timed<IoResult> read = co_await deadline_->guard(stream_->read_pooled(*input_));
  if (read.timed_out()) add_stat(site_.tracker->draining() ? Stat::closed_by_drain : Stat::timeouts_body);
  co_return read;
}

void HttpConnection::settle_unread_body() noexcept {
  if (connection_phase_ != ConnectionPhase::open) return;
  if (body_phase_ == BodyPhase::uninvited) {
    // The client waits to be invited and never was: it may send the body
    // after a while anyway, or not at all, so only closing ends it cleanly.
    close_after_response();
    return;
  }
  std::uint64_t left = 0;
  if (parser_.sized_body_left(left) && left > kMaxDiscardBytes) close_after_response();
}

Task<HttpConnection::AfterAnswer> HttpConnection::end_streamed_body(AfterAnswer after) {
  if (after == AfterAnswer::keep_open && body_state_ == BodyStatus::data) {
    // The handler answered without reading the whole body. Like nginx's
    // discarded bodies: the answer goes out first (a client may stop
    // sending on reading it), then the rest is read and dropped, bounded.
    const Flushed flushed = co_await flush();
    bool dropping = flushed == Flushed::written;  // while the rest may still be dropped to keep the connection
    std::uint64_t dropped = 0;
    enter(BodyPhase::dropping);  // Why never a 100 Continue now: settle_unread_body closed the connection if it was owed
    while (dropping) {
      const BodyChunk chunk = co_await read_body();
      if (chunk.status == BodyStatus::end) break;
      dropped += chunk.bytes.size();
      dropping = static_cast<bool>(chunk) && dropped <= kMaxDiscardBytes;
    }
    if (!dropping) after = AfterAnswer::close;
  }
  input_ = nullptr;
  pending_ = nullptr;
  enter(BodyPhase::none);
  parser_.request().body_reader().attach(nullptr);
  // Why the phase too: a forbidden change above (enter) closes the connection after this request.
  co_return after == AfterAnswer::keep_open ? after_answer() : AfterAnswer::close;
}

}  // namespace tiffany::http
