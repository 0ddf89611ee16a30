// WsRawClient: a hand-written WebSocket client for tests (plain TCP or TLS): handshakes, masked frames, raw bytes.
#pragma once

#include <openssl/ssl.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <tiffany/reactor/unique_fd.hpp>

namespace tiffany::testing {

/// One frame as the server sent it.
struct WsFrame {
  bool fin = true;
  std::uint8_t rsv = 0;  // the three RSV bits, as the high nibble's low 3 bits
  std::uint8_t opcode = 0;
  bool masked = false;
  std::string payload;
  /// A close frame's code (0 when it has none) and reason.
  std::uint16_t close_code() const;
  std::string close_reason() const;
};

/// Frame bytes a client sends: masked with a fixed key unless `mask` is false.
/// `rsv` is the RSV bits (0x40 = RSV1); `opcode` may be any 4-bit value.
std::string ws_frame(std::uint8_t opcode, std::string_view payload, bool fin = true, bool mask = true,
                     std::uint8_t rsv = 0);
/// A close frame with `code` and `reason`.
std::string ws_close_frame(std::uint16_t code, std::string_view reason = {});
/// A handshake request for `path` (key dGhlIHNhbXBsZSBub25jZQ==) with `extra` header lines ("Name: value\r\n").
std::string ws_handshake(const std::string& path, const std::string& extra = {});
/// The Sec-WebSocket-Accept the server must answer to ws_handshake's key.
inline constexpr const char* kWsSampleAccept = "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=";

/// A blocking-looking client on a non-blocking socket: every wait is bounded.
/// Over TLS the server's certificate is not verified.
class WsRawClient {
 public:
  WsRawClient(int port, bool tls);
  WsRawClient(const WsRawClient&) = delete;
  WsRawClient& operator=(const WsRawClient&) = delete;
  ~WsRawClient();

  /// True once connected (and the TLS handshake done); error() says why not.
  bool ok() const { return ok_; }
  const std::string& error() const { return error_; }
  int fd() const { return fd_.get(); }

  /// Writes all of `bytes` within `timeout`; false if it could not (then
  /// `sent`, if given, says how much went).
  bool send(std::string_view bytes, std::chrono::milliseconds timeout = std::chrono::seconds(5),
            std::size_t* sent = nullptr);
  /// Reads until an HTTP head (through CRLF CRLF) arrived, plus its
  /// Content-Length body; "" on timeout or close. Bytes after it stay buffered.
  std::string read_http(std::chrono::milliseconds timeout = std::chrono::seconds(5));
  /// Sends ws_handshake(path, extra) and reads the answer's head; true for a 101 with the right accept.
  bool handshake(const std::string& path, const std::string& extra = {});
  /// The next frame, or nullopt on timeout or close (closed() tells which).
  std::optional<WsFrame> read_frame(std::chrono::milliseconds timeout = std::chrono::seconds(5));
  /// The next frame that is not a ping (pings are answered with pongs).
  std::optional<WsFrame> read_data_frame(std::chrono::milliseconds timeout = std::chrono::seconds(5));
  /// Reads and drops bytes until the server closes (true) or `timeout` passes (false).
  bool wait_closed(std::chrono::milliseconds timeout = std::chrono::seconds(5));
  /// True once a read saw the connection end (EOF, reset, TLS close).
  bool closed() const { return closed_; }
  /// True if the peer has shut its side (FIN or reset) without reading a byte (POLLRDHUP).
  bool peer_hung_up() const;

 private:
  /// Reads what is available within `timeout` into buffer_; false on close or timeout.
  bool fill(std::chrono::milliseconds timeout);

  struct SslCtxFree {
    void operator()(SSL_CTX* ctx) const { SSL_CTX_free(ctx); }
  };
  struct SslFree {
    void operator()(SSL* ssl) const { SSL_free(ssl); }
  };
  std::unique_ptr<SSL_CTX, SslCtxFree> ctx_;
  std::unique_ptr<SSL, SslFree> ssl_;
  UniqueFd fd_;
  std::string buffer_;
  bool ok_ = false;
  bool closed_ = false;
  std::string error_;
};

}  // namespace tiffany::testing
