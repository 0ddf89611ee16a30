// Http2Connection: request bodies: streamed to a running handler or held whole, within the connection's budget and window.
#include "server/http2/http2_connection.hpp"

#include "handlers/engine/http2_metrics.hpp"

namespace tiffany::http2 {

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
  if (input.finished() || stream.phase == StreamPhase::finished) return;
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
  if (found == nullptr) return;
  http::Request& request = stream.request();
  // Why: HTTP/2 need not say how long a body is, and handlers (the proxy
  // forwarding it, say) read its length as HTTP/1.1 gives it.
  if (!stream.body_streamed && !request.headers.get("Content-Length") &&
      (!request.body.empty() || request.method == "POST" || request.method == "PUT" || request.method == "PATCH")) {
    request.headers.add("Content-Length", std::to_string(request.body.size()));
  }
  if (!enter(stream, StreamPhase::running)) return;
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
  (void)enter(stream, StreamPhase::finished);
  --running_tasks_;
  release_body(stream);
  release_window();
  forget_if_done(stream);
}

void Http2Connection::refuse(Http2Stream& stream, int status) {
  if (!enter(stream, StreamPhase::refused)) return;
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
    if (stream != nullptr && stream->phase == StreamPhase::uploading) return stream;
  }
  uploads_.clear();
  uploads_from_ = 0;
  return nullptr;
}

}  // namespace tiffany::http2
