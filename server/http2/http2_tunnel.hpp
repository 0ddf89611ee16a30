// Http2Tunnel: one HTTP/2 stream's DATA frames as a ByteStream, for a WebSocket opened by CONNECT (RFC 8441).
#pragma once

#include <cstddef>

#include <tiffany/net/byte_stream.hpp>

namespace tiffany::http2 {

class Http2Stream;

/// Reads the client's DATA on the stream and writes ours, so protocol code
/// written for a socket (WebSocketSession) runs on one stream unchanged.
/// Flow control is the back-pressure both ways: a read reopens the client's
/// window for what it took, and a write waits while the stream holds more
/// than Http2Stream::kMaxPendingBytes for a client whose window is shut.
/// A read gives 0 once the client ended the stream, an error once it reset
/// it or the connection ended. Owned by the stream, used by one task at a time.
class Http2Tunnel final : public ByteStream {
 public:
  explicit Http2Tunnel(Http2Stream& stream) noexcept : stream_(stream) {}

  Task<IoResult> read(char* data, std::size_t size) override;
  /// Waits for DATA holding no buffer, then lends one for what arrived.
  Task<IoResult> read_pooled(ReadLease& lease) override;
  Task<IoResult> write(const char* data, std::size_t size) override;
  /// Nothing to do: the stream ends when its handler returns.
  void finish() noexcept override {}
  /// Whether the connection that carries the stream is TLS.
  bool encrypted() const noexcept override;

 private:
  Http2Stream& stream_;
};

}  // namespace tiffany::http2
