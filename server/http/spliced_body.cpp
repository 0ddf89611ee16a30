// HttpConnection's side of a splice: a response body another socket splices into this one (the proxy's large bodies).
#include <tiffany/handlers/server_stats.hpp>
#include <tiffany/http/http_status.hpp>

#include "server/http/http_connection.hpp"
#include "server/transport/stage_timeout.hpp"

namespace tiffany::http {

int HttpConnection::splice_socket() const noexcept {
  // Why each condition: the bytes go on the wire exactly as another socket
  // holds them, so nothing may frame (chunks) or encrypt (TLS) them.
  const bool raw = stream_->socket() >= 0 && !stream_->encrypted() && response_phase_ != ResponsePhase::chunked;
  return raw ? stream_->socket() : -1;
}

void HttpConnection::spliced(std::uint64_t bytes) noexcept {
  add_stat(Stat::bytes_sent, static_cast<std::int64_t>(bytes));
  streamed_bytes_ += bytes;
}

void HttpConnection::splice_failed(bool timed_out) noexcept {
  if (timed_out) count_timeout(TimeoutStage::write);
  break_connection();  // part of the body is on the wire: close, never reuse
}

}  // namespace tiffany::http
