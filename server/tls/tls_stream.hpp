// TlsStream: ByteStream over TLS. OpenSSL only transforms bytes in memory (a BIO
// pair); the reactor does all socket I/O with Recv and Send.
#pragma once

#include <string_view>

#include "reactor/unique_fd.hpp"
#include "server/byte_stream.hpp"
#include "server/tls/openssl_handles.hpp"
#include "server/tls/tls_context.hpp"

namespace tiffany::tls {

/// One TLS connection, usually the server side. Owns the socket (closed on
/// destruction) and the OpenSSL connection. OpenSSL never touches the socket:
/// ciphertext moves between the socket and a BIO pair through io_uring Recv
/// and Send, straight into and out of the pair's buffers, so a slow or stalled
/// peer parks only this task and never blocks the worker. (Handshake flights
/// and the last close_notify first try one non-blocking send; see handshake().)
///
/// Memory: the pair holds 17 KiB inbound and 34 KiB outbound for the life of
/// the connection; OpenSSL's own record buffers are released when idle.
///
/// Call handshake() first; read() and write() then carry application data.
/// Used by one task at a time, on the thread of its scheduler; `context`
/// must outlive the stream.
class TlsStream final : public ByteStream {
 public:
  /// The server side of an accepted connection, with the listener's context.
  TlsStream(UniqueFd socket, const TlsContext& context);
  /// Either side over an SSL the caller has set up (SSL_set_connect_state for
  /// a client, as the load client does). Throws std::bad_alloc.
  TlsStream(UniqueFd socket, SslPtr ssl);
  TlsStream(const TlsStream&) = delete;
  TlsStream& operator=(const TlsStream&) = delete;
  ~TlsStream() override;

  /// Runs the handshake. False if it failed (the peer's alert, bad input, or
  /// the peer left); any alert of ours has been sent.
  Task<bool> handshake();

  /// Decrypted bytes; bytes() == 0 when the peer closed (close_notify or TCP
  /// EOF). A TLS-level failure is EPROTO.
  Task<IoResult> read(char* data, std::size_t size) override;
  /// Encrypts and sends all `size` bytes or fails.
  Task<IoResult> write(const char* data, std::size_t size) override;
  /// Sends close_notify (best effort, without waiting) and half-closes.
  void finish() noexcept override;
  /// Drops raw records from the socket, undecrypted: finish() has already
  /// dropped raw bytes too, so the record stream can no longer be read.
  Task<IoResult> discard_some() override;

  int fd() const noexcept { return socket_.get(); }
  /// The ALPN protocol agreed on ("http/1.1"), or empty.
  std::string_view alpn() const noexcept;

 private:
  /// Receives ciphertext straight into the pair; bytes() == 0 at TCP EOF.
  Task<IoResult> fill();
  /// Sends every byte OpenSSL has produced so far.
  Task<IoResult> flush();
  /// Like flush, but tries a direct non-blocking send first (see handshake()).
  Task<IoResult> flush_at_once();
  /// Moves what it can of OpenSSL's output to the socket without waiting;
  /// false if the socket failed. finish() and flush_at_once() use it.
  bool send_without_waiting() noexcept;
  bool has_output() const noexcept;

  UniqueFd socket_;
  SslPtr ssl_;
  BIO* network_ = nullptr;  // our end of the pair; OpenSSL owns the other (and frees both with ssl_)
  bool established_ = false;
};

}  // namespace tiffany::tls
