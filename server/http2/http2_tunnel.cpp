// Http2Tunnel: reads take the stream's input, writes queue DATA.
#include "server/http2/http2_tunnel.hpp"

#include <cerrno>
#include <string_view>
#include <utility>

#include "reactor/engine/spare_read_buffers.hpp"
#include "server/http2/http2_stream.hpp"

namespace tiffany::http2 {
namespace {

// What a read gives once the input stopped: 0 at END_STREAM, else the stream is gone (reset, or the connection ended).
IoResult ended(http::BodyStatus status) noexcept {
  return status == http::BodyStatus::end ? IoResult{0} : IoResult{-ECONNRESET};
}

}  // namespace

Task<IoResult> Http2Tunnel::read(char* data, std::size_t size) {
  const http::BodyStatus status = co_await stream_.input().wait();
  if (status != http::BodyStatus::data) co_return ended(status);
  co_return IoResult{static_cast<int>(stream_.take_input(data, size))};
}

Task<IoResult> Http2Tunnel::read_pooled(ReadLease& lease) {
  const http::BodyStatus status = co_await stream_.input().wait();
  if (status != http::BodyStatus::data) co_return ended(status);
  ReadLease buffer = SpareReadBuffers::for_this_thread().take();
  const std::size_t taken = stream_.take_input(buffer.data(), kReadBufferSize);
  buffer.set_size(taken);
  lease = std::move(buffer);
  co_return IoResult{static_cast<int>(taken)};
}

Task<IoResult> Http2Tunnel::write(const char* data, std::size_t size) {
  const Http2Stream::Queued queued = co_await stream_.queue_output(std::string_view(data, size));
  co_return queued == Http2Stream::Queued::ok ? IoResult{0} : IoResult{-EPIPE};
}

bool Http2Tunnel::encrypted() const noexcept { return stream_.request().tls; }

}  // namespace tiffany::http2
