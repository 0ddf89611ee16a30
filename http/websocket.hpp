// WebSocket: a handler's side of a WebSocket connection (RFC 6455), and accept_websocket to get one.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <tiffany/coro/task.hpp>
#include <tiffany/http/delivery.hpp>
#include <tiffany/http/request.hpp>
#include <tiffany/http/response.hpp>

namespace tiffany::http {

/// One whole message, however many frames it came in.
struct WebSocketMessage {
  bool text = false;  ///< text (UTF-8, checked on arrival) or binary
  std::string data;
};

/// permessage-deflate (RFC 7692), used when the client offers it.
struct WebSocketCompression {
  bool enabled = true;
  /// false (the default): each message is compressed on its own, by a
  /// compressor the worker's connections share, and the client is asked to
  /// do the same (`*_no_context_takeover`), so a connection holds no zlib
  /// state. true: each direction keeps its window between messages (better
  /// ratios for many small, similar messages) at about 2^(window_bits+2) +
  /// 128 KiB for ours and 2^window_bits + 7 KiB for the client's, per connection.
  bool context_takeover = false;
  /// Our compressor's window, 9 to 15 (the client may ask for less); with
  /// context_takeover also the most we let the client use when it lets us choose.
  int window_bits = 15;
  /// zlib's level, 1 (fastest) to 9.
  int level = 4;
  /// Shorter messages are sent uncompressed.
  std::size_t min_bytes = 128;
};

/// How accept_websocket sets a connection up. The defaults suit a chat or a
/// dashboard; every limit holds per connection.
struct WebSocketOptions {
  /// The subprotocols this handler speaks, most preferred first. The first
  /// of them the client offers (Sec-WebSocket-Protocol) is chosen; none is
  /// when the list is empty or the client offers none of them.
  std::vector<std::string> subprotocols;
  /// A longer incoming message closes the connection with 1009.
  std::size_t max_message_bytes = 1024 * 1024;
  /// Messages read ahead of receive(); then nothing more is read from the
  /// socket until the handler takes one (the client is slowed by TCP).
  std::size_t receive_queue_messages = 16;
  /// send() returns once at most this much of what was sent is still
  /// waiting for the peer: a slow reader slows its sender.
  std::size_t send_buffer_bytes = 64 * 1024;
  /// More than this waiting to be written (senders that did not wait, a
  /// peer that stopped reading) closes the connection with 1008.
  std::size_t max_queued_bytes = 1024 * 1024;
  /// A ping goes out after this long without a byte from the peer; zero: never.
  std::chrono::milliseconds ping_interval{30'000};
  /// A peer silent for this long after a ping is gone: the connection drops (1006).
  std::chrono::milliseconds pong_timeout{30'000};
  /// How long a close waits for the peer's close frame, and a write for any progress.
  std::chrono::milliseconds close_timeout{5'000};
  /// permessage-deflate. An incoming compressed message is held to
  /// max_message_bytes once inflated (no decompression bomb), and as received
  /// to that plus deflate's overhead on data that does not compress.
  WebSocketCompression compression;
};

/// An accepted WebSocket connection. The connection owns it; it is valid
/// until the handler that accepted it returns. Then the server finishes the
/// close handshake (1000, or 1011 if the handler threw) and closes the
/// connection.
///
/// Tasks: one task receives at a time; any number of tasks of the handler's
/// worker may send (their messages go out whole, in the order sent). Both
/// waits may be canceled (a race, a deadline) without losing or cutting a
/// message: reading and writing run in the connection's own tasks, which
/// also answer pings, send pings to an idle peer, and answer its close.
/// Not thread-safe: use it from the worker that runs the handler.
class WebSocket {
 public:
  virtual ~WebSocket() = default;

  /// The next whole message; nullopt once the connection is closing or
  /// closed (close_code() then says how).
  virtual Task<std::optional<WebSocketMessage>> receive() = 0;
  /// Queues `data` as one message and waits while more than
  /// send_buffer_bytes of it is still unwritten. Closed when the connection
  /// is closing or closed (nothing is queued). A text message must be valid
  /// UTF-8 (std::invalid_argument otherwise).
  virtual Task<Delivery> send(std::string_view data, bool text) = 0;
  Task<Delivery> send_text(std::string_view data) { return send(data, true); }
  Task<Delivery> send_binary(std::string_view data) { return send(data, false); }
  /// Starts the close handshake with `code` (1000, or 3000-4999 for the
  /// application's own) and `reason` (cut to fit 123 bytes); does not wait.
  /// receive() then ends once the peer's close arrives. Only the first
  /// close (ours or the peer's) counts.
  virtual void close(std::uint16_t code = 1000, std::string_view reason = {}) = 0;
  /// True until either side has begun to close, or the connection failed.
  virtual bool is_open() const noexcept = 0;
  /// The close code: the peer's (1005 when its close frame had none), ours
  /// when we closed first, 1006 when the connection ended without a close
  /// handshake; 0 while open.
  virtual std::uint16_t close_code() const noexcept = 0;
  /// The subprotocol chosen at the handshake, or empty.
  virtual std::string_view subprotocol() const noexcept = 0;
};

/// Accepts `request` as a WebSocket handshake (RFC 6455 §4.2): answers 101
/// Switching Protocols (over HTTP/2, an extended CONNECT by RFC 8441: 200)
/// and returns the connection, valid until the handler returns. When it is
/// not a valid handshake returns nullptr with the refusal in `response` for
/// the handler to return as it is: 426 with `Upgrade: websocket` for a
/// request that did not ask to upgrade, 426 with `Sec-WebSocket-Version: 13`
/// for another version (over HTTP/2: 400 with it), 400 for a malformed
/// handshake (a missing or malformed Sec-WebSocket-Key, not GET, HTTP/1.0,
/// a body) and for an HTTP/2 request that is not an extended CONNECT, 503
/// while the server is shutting down, and 501 where the response goes to
/// no connection that can switch (a test kit's plain run). Headers the
/// handler set on `response` before (Set-Cookie, say) go out with the answer.
Task<WebSocket*> accept_websocket(Request& request, Response& response, WebSocketOptions options = {});

}  // namespace tiffany::http
