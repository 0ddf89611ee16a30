// Delivery: what became of a write to a streamed response or a WebSocket.
#pragma once

#include <cstdint>

namespace tiffany::http {

/// What became of a piece of a streamed response body (Response::write,
/// Response::send_file) or of a WebSocket message (WebSocket::send).
/// Why not a bool: `false` meant something else on each interface that
/// returned one (plugin ABI 8).
enum class Delivery : std::uint8_t {
  /// Handed to the connection: on its way to the client.
  sent,
  /// Nothing more can go: the client left or reset the stream, a write timed
  /// out, the file ended early, the WebSocket is closing, or the response
  /// head was refused and a 500 went in its place. Stop writing.
  closed,
};

}  // namespace tiffany::http
