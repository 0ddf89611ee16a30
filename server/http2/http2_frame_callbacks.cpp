// Http2Connection: nghttp2's callbacks for frames as they arrive and leave (headers are in http2_request_head.cpp).
#include "server/http2/http2_connection.hpp"

#include <tiffany/handlers/server_stats.hpp>

#include "handlers/engine/http2_metrics.hpp"
#include "server/log/access_log.hpp"

namespace tiffany::http2 {
namespace {

Http2Connection& connection_of(void* self) noexcept { return *static_cast<Http2Connection*>(self); }

std::string_view text(const std::uint8_t* bytes, std::size_t size) noexcept {
  return {reinterpret_cast<const char*>(bytes), size};
}

}  // namespace

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
      if (stream->phase == StreamPhase::headers) {
        connection.headers_complete(*stream, end_stream);
      } else if (end_stream && stream->awaits_body()) {  // trailers end the request
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
      if (stream == nullptr || !end_stream || !stream->awaits_body()) return 0;
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
  if (stream == nullptr || stream->phase == StreamPhase::refused) {
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
  if (stream.phase == StreamPhase::running) {
    // The client reset it (or it ended otherwise) while the handler ran:
    // nobody waits for the answer. Why the bookkeeping here and not in the
    // task: a canceled task unwinds (or, not started, never runs) without
    // reaching task_done(), and detached it never calls back.
    if (connection.unwinding_ == nullptr) connection.unwinding_ = std::make_shared<std::size_t>(0);
    stream.count_unwinding(connection.unwinding_);
    stream.detach();
    entry.task.cancel();
    (void)connection.enter(stream, StreamPhase::finished);
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

}  // namespace tiffany::http2
