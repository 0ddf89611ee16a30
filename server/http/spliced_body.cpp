// HttpConnection as a SpliceSink: a response body another socket splices into this one (the proxy's large bodies).
#include <tiffany/handlers/server_stats.hpp>
#include <tiffany/http/http_status.hpp>

#include "server/http/http_connection.hpp"
#include "server/transport/stage_timeout.hpp"

namespace tiffany::http {

Task<SpliceTarget> HttpConnection::begin_splice(Response& response) {
  // The head first, and every answer queued before it.
  const Delivery sent = co_await write_body(response, {});
  if (sent == Delivery::closed) co_return SpliceTarget{-1, true};
  // Why each condition: the bytes go on the wire exactly as the upstream
  // sent them, so nothing may frame (chunks), encode (gzip, br, zstd) or
  // encrypt (TLS) them, and a bodiless answer sends none.
  const bool raw = stream_->socket() >= 0 && !stream_->encrypted() && response_phase_ != ResponsePhase::chunked &&
                   !exchange_.compression().streaming() && !head_request_ && !status_forbids_body(response.status) &&
                   response.content_length().has_value();
  co_return SpliceTarget{raw ? stream_->socket() : -1, false};
}

void HttpConnection::spliced(std::uint64_t bytes) noexcept {
  add_stat(Stat::bytes_sent, static_cast<std::int64_t>(bytes));
  streamed_bytes_ += bytes;
  identity_bytes_ += bytes;
}

void HttpConnection::splice_failed(bool timed_out) noexcept {
  if (timed_out) count_timeout(TimeoutStage::write);
  break_connection();  // part of the body is on the wire: close, never reuse
}

}  // namespace tiffany::http
