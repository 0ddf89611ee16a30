// HttpConnection: the request loop, response serialisation, streaming.
#include "server/http/http_connection.hpp"

#include <algorithm>
#include <exception>
#include <memory>
#include <stdexcept>
#include <utility>

#include <tiffany/coro/deadline.hpp>
#include <tiffany/coro/get_tid.hpp>
#include <tiffany/handlers/handler.hpp>
#include <tiffany/handlers/server_stats.hpp>
#include <tiffany/http/http_status.hpp>

#include "handlers/engine/metrics.hpp"
#include "handlers/engine/readiness.hpp"
#include "server/log/access_log.hpp"
#include "server/log/error_log.hpp"
#include "server/log/state_bug.hpp"
#include "server/transport/connection_tracker.hpp"
#include "server/transport/keep_alive_hold.hpp"
#include "server/transport/lingering_close.hpp"
#include "server/transport/stage_timeout.hpp"
#include "server/websocket/websocket_session.hpp"

namespace tiffany::http {
namespace {

constexpr std::size_t kMaxBufferedOutput = 256 * 1024;  // flush before parsing more pipelined requests
constexpr std::size_t kKeptOutputCapacity = 64 * 1024;   // a spare state keeps at most this much output buffer
constexpr std::size_t kKeptBodyCapacity = 64 * 1024;     // and at most this much request body buffer
constexpr std::size_t kMaxReferenced = 32;  // referenced bodies per write: one sendmsg of at most 65 vectors

}  // namespace

HttpConnection::HttpConnection(const HttpSite& site) : site_(site), parser_(site.limits) {
  response_.attach(&exchange_);
  // Why only then: stopping at each header section costs a pause and a routing per request with a body.
  parser_.stop_before_bodies(site.router.streams_any());
}

void HttpConnection::trim() noexcept {
  drop_output();
  if (out_.capacity() > kKeptOutputCapacity) std::string().swap(out_);
  // Why: the answered request's body is not needed any more; a spare state
  // must not keep a large upload's buffer while it waits for reuse.
  std::string& body = parser_.request().body;
  if (body.capacity() > kKeptBodyCapacity) std::string().swap(body);
  exchange_.trim();
}

void HttpConnection::arm_read_deadline() {
  const HttpTimeouts& timeouts = site_.timeouts;
  const auto now = Scheduler::current().now();
  if (parser_.in_headers()) {
    // Why: the header section has one budget from its first byte, however it
    // trickles in, which is what stops slowloris.
    if (!header_until_) header_until_ = now + timeouts.header;
    deadline_->rearm(*header_until_);
    return;
  }
  // Why two clocks: body_ms alone is per read, so a body sent a byte at a
  // time never ends; body_total_ms is one budget for the whole body, from
  // the end of its header section, like header_ms for the headers.
  if (!body_until_ && timeouts.body_total.count() > 0) body_until_ = now + timeouts.body_total;
  const auto until = now + timeouts.body;
  deadline_->rearm(body_until_ ? std::min(until, *body_until_) : until);
}

Task<AfterBurst> HttpConnection::serve(ByteStream& stream, ConnectionContext& context, ReadLease first) {
  stream_ = &stream;
  drop_output();  // Why: nothing of an earlier connection's (say one whose write was canceled) may reach this one
  exchange_.reset();  // nor an early route of a request it never answered
  peer_ = &context.peer;
  tls_ = context.tls;
  deadline_ = &context.deadline;
  socket_ = stream.socket();
  task_ = co_await GetTid{};
  ReadLease input = std::move(first);
  header_until_.reset();
  body_until_.reset();
  for (;;) {
    add_stat(Stat::bytes_received, static_cast<std::int64_t>(input.size()));
    std::string_view bytes = input.bytes();
    while (!bytes.empty()) {
      const RequestParser::Result parsed = parser_.feed(bytes);
      bytes.remove_prefix(parsed.consumed);
      if (parsed.event == RequestParser::Event::need_more) break;
      if (parsed.event == RequestParser::Event::error) {
        input.reset();  // nothing more of it is parsed
        reject(parser_.error_status());
        const Flushed flushed = co_await flush();
        stream.finish();
        // Why: bad input is answered before the request ends (a body over
        // the limit, say), so the peer is likely still sending.
        if (flushed == Flushed::written) co_await linger();
        co_return AfterBurst::close;
      }
      if (parsed.event == RequestParser::Event::headers_ready) {
        // A body follows, and some route of this site streams bodies: is it this one's?
        Router::Result routed = site_.router.route(parser_.request());
        const bool streams = routed.streams_body;
        // Why kept: answer() takes it instead of routing again (unless a middleware changes the method or path).
        exchange_.routed_early(std::move(routed), parser_.request());
        if (!streams) {
          parser_.read_body_whole();
          continue;
        }
        begin_streamed_body(input, bytes);
      }
      unparsed_ = &bytes;
      unparsed_lease_ = &input;
      co_await answer();
      // Why only the phase: whatever ended the answer badly left the connection other than open.
      AfterAnswer after = after_answer();
      unparsed_ = nullptr;
      unparsed_lease_ = nullptr;
      bool body_unread = false;  // of a streamed body: the peer may still be sending it
      if (body_phase_ != BodyPhase::none) {
        after = co_await end_streamed_body(after);
        body_unread = body_state_ == BodyStatus::data;
      }
      parser_.next();
      header_until_.reset();  // the next request's stages get budgets of their own
      body_until_.reset();
      if (after == AfterAnswer::close) {
        const bool more_input = !bytes.empty() || body_unread;  // sent after a last request: more may be on its way
        input.reset();
        const Flushed flushed = co_await flush();
        if (flushed == Flushed::written) stream.finish();
        if (flushed == Flushed::written && more_input) co_await linger();
        co_return AfterBurst::close;
      }
      if (buffered_output() >= kMaxBufferedOutput || referenced_.size() >= kMaxReferenced) {
        // Why: back-pressure. Many or large pipelined responses go out before
        // more requests are parsed, so a peer that sends but does not read
        // cannot make us buffer without bound.
        const Flushed flushed = co_await flush();
        if (flushed == Flushed::failed) co_return AfterBurst::close;
      }
    }
    input.reset();  // the parser copied what it needs: the buffer goes back before any wait
    if (parser_.take_continue_request()) {
      // Why route first: "100 Continue" invites the body; a client must not
      // upload it only to hear 404 or 405 (RFC 9110 §10.1.1 lets us answer
      // the final status at once). The body is then not read: close, lingering.
      if (exchange_.route_ahead(parser_.request()) == Router::Outcome::found) {
        out_ += "HTTP/1.1 100 Continue\r\n\r\n";
      } else {
        close_after_response();  // answered before the body was read: the connection cannot go on after it
        co_await answer();
        const Flushed flushed = co_await flush();
        stream.finish();
        if (flushed == Flushed::written) co_await linger();
        co_return AfterBurst::close;
      }
    }
    const Flushed flushed = co_await flush();
    if (flushed == Flushed::failed) co_return AfterBurst::close;
    if (!parser_.in_message()) {  // every request answered: idle
      if (context.hold == nullptr || !context.hold->may_wait()) co_return AfterBurst::idle;
      trim();  // Why: a busy connection waits with its state, which must not keep a large response's buffers
      const HeldInput next = co_await context.hold->wait(input);
      if (next == HeldInput::quiet) co_return AfterBurst::idle;
      if (next == HeldInput::closed) co_return AfterBurst::close;
      continue;  // its next request, in this task
    }

    // A request is incomplete: read the rest under its stage's timeout.
    arm_read_deadline();
    const TimeoutStage stage = parser_.in_headers() ? TimeoutStage::header : TimeoutStage::body;
    const Timed<IoResult> read = co_await within(*deadline_, stage, stream.read_pooled(input));
    if (read.timed_out()) {
      close_after_response();
      reject(408);
      const Flushed flushed_error = co_await flush();
      if (flushed_error == Flushed::written) stream.finish();
      co_return AfterBurst::close;
    }
    const IoResult got = *read;
    if (!got || got.bytes() == 0) {
      if (got && parser_.finish() == RequestParser::Event::error) {  // cut off mid-request
        reject(parser_.error_status());
        co_await flush();
        stream.finish();
      }
      co_return AfterBurst::close;
    }
  }
}

Task<void> HttpConnection::linger() {
  const LingerLimits limits{site_.timeouts.linger, site_.timeouts.linger_read, site_.limits.max_linger_bytes};
  co_await lingering_close(*stream_, *deadline_, limits, site_.tracker);
}

Task<void> HttpConnection::answer() {
  Request& request = parser_.request();
  request.peer = *peer_;
  request.tls = tls_;
  response_.clear();
  // Why no way back to open: the connection is open here unless the serve
  // loop already decided this answer is its last (a 100-continue refused).
  if (!parser_.keep_alive()) close_after_response();
  head_request_ = request.is_head();
  http10_ = request.version_minor == 0;
  response_phase_ = ResponsePhase::none;  // a new response, not a change of the last one's
  streamed_bytes_ = 0;
  watch_client_ = false;  // until the routing says (handler_routed)
  // Why not a coroutine: the exchange's is the request's only frame.
  return exchange_.respond(request, response_, *deadline_);
}

void HttpConnection::reject(int status) {
  // Why the parser's partial request: the access log shows what the client
  // sent as far as it was read; no handler ever sees it.
  const Request& request = parser_.rejected();
  head_request_ = request.is_head();
  http10_ = false;
  response_phase_ = ResponsePhase::none;  // a new response, not a change of the last one's
  append_error(status);
  if (site_.unmatched != nullptr) site_.unmatched->count(status);
  if (site_.access_log != nullptr) {
    site_.access_log->record(request, *peer_, {}, status, sent_length_, std::chrono::microseconds(0));
  }
}

void HttpConnection::enter(ConnectionPhase next) noexcept {
  // Why nothing more when refused: open may go anywhere, and every other
  // phase closes the connection after this response.
  (void)change_phase(connection_phase_, next, "an HTTP/1.1 connection");
}

void HttpConnection::enter(ResponsePhase next) noexcept {
  if (!change_phase(response_phase_, next, "an HTTP/1.1 response")) close_after_response();
}

void HttpConnection::close_after_response() noexcept {
  if (connection_phase_ == ConnectionPhase::open) enter(ConnectionPhase::closing);
}

void HttpConnection::break_connection() noexcept {
  if (connection_phase_ != ConnectionPhase::broken) enter(ConnectionPhase::broken);
}

HttpConnection::AfterAnswer HttpConnection::after_answer() const noexcept {
  return connection_phase_ == ConnectionPhase::open ? AfterAnswer::keep_open : AfterAnswer::close;
}

// Why here, beside serve() and flush(): both call it on every request, and here it is inlined.
void HttpConnection::drop_output() noexcept {
  out_.clear();
  referenced_.clear();
  referenced_bytes_ = 0;
}

Task<ResponseWire::Head> HttpConnection::send_head(const Response& response, std::optional<std::uint64_t> length,
                                                   bool bodyless, bool encoded) {
  if (body_phase_ == BodyPhase::uninvited && body_state_ == BodyStatus::data) {
    // Why: "100 Continue" cannot follow a final head, so the client is never invited to send the body.
    enter(BodyPhase::streaming);
    close_after_response();
  }
  const Headers::Field* invalid = nullptr;
  if (encoded && bodyless) {
    invalid = append_head(response, UINT64_MAX, ResponsePhase::identity);
  } else if (length || bodyless) {
    invalid = append_head(response, length.value_or(0), ResponsePhase::identity);
  } else if (http10_) {
    close_after_response();  // HTTP/1.0 has no chunking: the body ends when we close
    invalid = append_head(response, UINT64_MAX, ResponsePhase::identity);
  } else {
    invalid = append_head(response, 0, ResponsePhase::chunked);
  }
  if (invalid == nullptr) co_return Head::sent;
  // Nothing of the handler's response was written: a whole 500 goes out
  // instead, and the handler's writes fail from now on.
  refuse(response, *invalid);
  streamed_bytes_ = sent_length_;  // what the access log counts
  co_await flush();
  break_connection();
  co_return Head::refused;
}

Task<Delivery> HttpConnection::write_piece(std::string_view bytes) {
  // Why flushed each time: what the handler sent so far must reach the peer now.
  if (!bytes.empty()) append_body_bytes(bytes);
  const Flushed flushed = co_await flush();
  co_return flushed == Flushed::written ? Delivery::sent : Delivery::closed;
}

Task<std::optional<Delivery>> HttpConnection::send_file_range(int fd, std::uint64_t offset, std::uint64_t length) {
  if (response_phase_ == ResponsePhase::chunked) co_return std::nullopt;  // each piece a chunk
  // Why straight to the stream: from the page cache to the socket, so a slow
  // reader of a large file holds no buffer of ours.
  const auto outer = deadline_->armed_until();
  for (std::uint64_t left = length; left > 0;) {
    // Like nginx's send_timeout: the limit is on a wait for progress, so a
    // slow but steady reader is served, and a stalled one is dropped.
    deadline_->rearm_after(site_.timeouts.write);
    const Timed<IoResult> progress =
        co_await within(*deadline_, TimeoutStage::write, stream_->send_file_some(fd, offset, static_cast<std::size_t>(left)));
    const IoResult sent = progress.timed_out() ? IoResult{0} : *progress;
    if (!sent || sent.bytes() == 0) {  // the peer failed, stalled (timed out), or the file shrank
      break_connection();
      co_return Delivery::closed;
    }
    add_stat(Stat::bytes_sent, static_cast<std::int64_t>(sent.bytes()));
    streamed_bytes_ += sent.bytes();
    offset += sent.bytes();
    left -= sent.bytes();
  }
  deadline_->restore(outer);
  co_return Delivery::sent;
}

void HttpConnection::end_stream(std::string_view tail, bool as_declared) {
  // A write failed mid-stream, or the head was refused: the stream cannot be trusted.
  if (connection_phase_ == ConnectionPhase::broken) return;
  append_body_bytes(tail);
  if (response_phase_ == ResponsePhase::chunked) out_ += "0\r\n\r\n";
  enter(ResponsePhase::ended);
  if (!as_declared) close_after_response();  // the body the head framed is not what went: the client sees it cut
}

void HttpConnection::send_error(const Response& error) {
  // The handler's state is unknown, or the request is: start afresh on a new connection.
  close_after_response();
  if (connection_phase_ != ConnectionPhase::broken) append_whole_response(error);
}

ResponseWire::Sent HttpConnection::sent() const noexcept {
  return Sent{true, sent_status_, head_request_ ? 0 : response_.streaming() ? streamed_bytes_ : sent_length_};
}

Task<HttpConnection::Flushed> HttpConnection::flush() {
  if (out_.empty() && referenced_.empty()) co_return Flushed::written;
  // Why: a streaming handler flushes mid-run; its own deadline (or none)
  // must hold again once this write is done.
  const auto outer = deadline_->armed_until();
  deadline_->rearm_after(site_.timeouts.write);
  Timed<IoResult> write = Timed<IoResult>::timed_out_now();  // set by one of the writes below
  if (referenced_.empty()) {
    write = co_await within(*deadline_, TimeoutStage::write, stream_->write(out_.data(), out_.size()));
  } else {
    // out_ cut where each referenced body goes, those bodies in between.
    pieces_.clear();
    std::size_t from = 0;
    for (const Referenced& body : referenced_) {
      if (body.at > from) pieces_.push_back(iovec{out_.data() + from, body.at - from});
      pieces_.push_back(iovec{const_cast<char*>(body.bytes.data()), body.bytes.size()});
      from = body.at;
    }
    if (out_.size() > from) pieces_.push_back(iovec{out_.data() + from, out_.size() - from});
    write = co_await within(*deadline_, TimeoutStage::write, stream_->write_gather(pieces_));
  }
  const bool written = !write.timed_out() && static_cast<bool>(*write);  // timed out: a peer that does not read
  if (written) add_stat(Stat::bytes_sent, static_cast<std::int64_t>(buffered_output()));
  drop_output();
  if (!written) {
    break_connection();  // part of a response may be on the wire: close, never reuse
    co_return Flushed::failed;
  }
  deadline_->restore(outer);
  co_return Flushed::written;
}

Task<WebSocket*> HttpConnection::upgrade_to_websocket(Response& response, websocket::UpgradeTerms terms,
                                                      WebSocketOptions options) {
  if (websocket_ != nullptr || response.streaming()) {
    throw std::logic_error("accept_websocket: the response has already started");
  }
  if ((site_.tracker != nullptr && site_.tracker->draining()) || readiness() == Readiness::closing) {
    // Why refuse: a WebSocket would be told to go away (1001) at once; the client should reconnect elsewhere.
    response.status = 503;
    response.headers.remove_if([](const Headers::Field& field) {
      return iequals(field.name, "Upgrade") || iequals(field.name, "Sec-WebSocket-Accept") ||
             iequals(field.name, "Sec-WebSocket-Protocol") || iequals(field.name, "Sec-WebSocket-Extensions");
    });
    response.headers.set("Content-Type", "text/plain; charset=utf-8");
    response.body = "shutting down\n";
    co_return nullptr;
  }
  // Why: the session reads the socket from now on (epoll: one reader per socket).
  client_watch_.stop();
  response.mark_head_sent();
  const Headers::Field* invalid = append_head(response, 0, ResponsePhase::switching);
  if (invalid != nullptr) {
    refuse(response, *invalid);  // a 500 in its place, and the handler's writes fail
    co_await flush();
    break_connection();
    co_return nullptr;
  }
  const Flushed flushed = co_await flush();
  if (flushed == Flushed::failed) co_return nullptr;
  enter(ConnectionPhase::upgraded);
  std::string early;
  if (unparsed_ != nullptr) early.assign(std::exchange(*unparsed_, {}));  // frames, not HTTP: the session's
  // Why: the read buffer (16 KiB) would otherwise stay held for the WebSocket's whole life.
  if (unparsed_lease_ != nullptr) unparsed_lease_->reset();
  // Why disarm: the handler now runs as long as the WebSocket lives; the
  // session keeps its own timers (pings, writes, the close handshake).
  deadline_->disarm();
  websocket_ = std::make_shared<WebSocketSession>(*stream_, std::move(early), std::move(terms), options, site_.tracker,
                                                  site_.websocket_metrics);
  websocket_->start();
  co_return websocket_.get();
}

Task<void> HttpConnection::end_websocket(bool failed) {
  co_await websocket_->finish(failed ? websocket::close_code::internal_error : websocket::close_code::normal);
  streamed_bytes_ = websocket_->bytes_written();  // what the access log counts
  websocket_.reset();
  close_after_response();  // Why too: upgraded closes it already, unless that change was refused (a bug)
}

}  // namespace tiffany::http
