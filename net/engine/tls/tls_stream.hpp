// TlsStream: ByteStream over TLS. OpenSSL only transforms bytes in memory
// (CiphertextBuffers); the reactor does all socket I/O with RecvPooled and Send.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include <tiffany/coro/wake_signal.hpp>
#include <tiffany/net/byte_stream.hpp>
#include <tiffany/reactor/unique_fd.hpp>

#include "net/engine/tls/openssl_handles.hpp"
#include "net/internal/tls/ciphertext_buffers.hpp"

namespace tiffany::tls {

/// One TLS connection, usually the server side. OpenSSL never touches the
/// socket: ciphertext moves between the socket and CiphertextBuffers through
/// io_uring RecvPooled and Send, so a slow or stalled peer parks only this
/// task and never blocks the worker. (Handshake flights and the last
/// close_notify first try one non-blocking send; see handshake().)
///
/// Memory: the SSL and this object. Ciphertext sits in pooled buffers only
/// while it is in flight, a read waits for the socket with no buffer
/// (read_pooled), and OpenSSL's own record buffers are released when idle
/// (SSL_MODE_RELEASE_BUFFERS), so an idle connection holds no buffer at all.
///
/// Call handshake() first; read() and write() then carry application data.
/// Used on the thread of its scheduler by one task at a time, or by one
/// reading task and one writing task (a WebSocket's): both may need to send
/// (a read answers a key update), and their sends take turns. The context
/// must outlive the stream.
class TlsStream final : public ByteStream {
 public:
  /// The server side of an accepted connection on `fd`, which it does not
  /// own, made when the connection's first bytes (`hello`, ciphertext from a
  /// pooled receive) arrived: the SSL is created only now, from `context`
  /// (the listener's default certificate; SNI may switch it during the
  /// handshake). Throws std::bad_alloc.
  TlsStream(int fd, SSL_CTX* context, ReadLease hello);
  /// Either side over an SSL the caller has set up (SSL_set_connect_state for
  /// a client, as the load client does); owns the socket (closed on
  /// destruction). Throws std::bad_alloc.
  TlsStream(UniqueFd socket, SslPtr ssl);
  TlsStream(const TlsStream&) = delete;
  TlsStream& operator=(const TlsStream&) = delete;
  ~TlsStream() override;

  /// Runs the handshake. False if it failed (the peer's alert, bad input, or
  /// the peer left); any alert of ours has been sent.
  Task<bool> handshake();
  /// After a failed handshake: OpenSSL's reason ("certificate verify
  /// failed", "tlsv1 alert no application protocol"), or empty if the peer
  /// just left.
  std::string handshake_failure() const;

  /// Decrypted bytes; bytes() == 0 when the peer closed (close_notify or TCP
  /// EOF). A TLS-level failure is EPROTO.
  Task<IoResult> read(char* data, std::size_t size) override;
  /// Like read(), into a spare buffer taken only to decrypt: while it waits
  /// for the socket (a pooled receive) it holds no buffer.
  Task<IoResult> read_pooled(ReadLease& lease) override;
  /// Encrypts and sends all `size` bytes or fails.
  Task<IoResult> write(const char* data, std::size_t size) override;
  /// Sends close_notify (best effort, without waiting) and half-closes.
  void finish() noexcept override;
  /// Drops raw records from the socket, undecrypted: finish() has already
  /// dropped raw bytes too, so the record stream can no longer be read.
  Task<IoResult> discard_some() override;

  /// Ciphertext a pooled receive brought while nobody read this stream (the
  /// connection waited in an IdlePark): the next read decrypts it. Only
  /// when has_buffered_input() is false.
  void add_input(ReadLease ciphertext) noexcept { ciphertext_.add_input(std::move(ciphertext)); }
  /// True if a read can make progress without the socket: ciphertext
  /// received and not yet decrypted, or plaintext decrypted and not yet read.
  bool has_buffered_input() const noexcept override;
  bool encrypted() const noexcept override { return true; }
  int socket() const noexcept override { return fd_; }
  /// Sends close_notify (best effort, without waiting) and a FIN; the
  /// peer's records stay readable.
  void shutdown_write() noexcept override;

  /// The ALPN protocol agreed on ("http/1.1"), or empty.
  std::string_view alpn() const noexcept override;
  /// The connection, e.g. for its verification result after a failed handshake.
  SSL* ssl() const noexcept { return ssl_.get(); }

 private:
  void attach(SslPtr ssl);
  /// Both reads: waits for ciphertext only when none is buffered, then
  /// decrypts into `data`, or (`lease` given) into a spare buffer taken just
  /// for the SSL_read and handed over in `*lease`.
  Task<IoResult> decrypt(char* data, std::size_t size, ReadLease* lease);
  /// Receives ciphertext into a pooled buffer; bytes() == 0 at TCP EOF.
  Task<IoResult> fill();
  /// Sends every byte OpenSSL has produced so far; after another task's
  /// flush when one is under way (it may send this one's bytes too).
  Task<IoResult> flush();
  /// Like flush, but tries a direct non-blocking send first (see handshake()).
  Task<IoResult> flush_at_once();
  /// Moves what it can of OpenSSL's output to the socket without waiting;
  /// false if the socket failed. send_close_notify() and flush_at_once() use it.
  bool send_without_waiting() noexcept;
  /// Queues close_notify and sends what is pending without waiting (finish, shutdown_write).
  void send_close_notify() noexcept;

  UniqueFd owned_;  // empty when the socket belongs to someone else
  int fd_;
  CiphertextBuffers ciphertext_;  // before ssl_: the SSL's BIO points at it
  SslPtr ssl_;
  bool established_ = false;
  /// Whose turn it is to flush. Why shared with each flush's frame: when a
  /// worker is forced to stop, its scheduler destroys the frames left in any
  /// order, and a flush's frame may go after the connection that owned this
  /// stream; handing the turn on then touches only this.
  struct FlushTurn {
    bool flushing = false;  // a flush() is sending: another waits for `flushed`
    WakeSignal flushed;
  };
  std::shared_ptr<FlushTurn> flush_turn_;  // made by the first flush (a silent connection never needs it)
  unsigned long failure_ = 0;  // the OpenSSL error that ended the handshake (a code: no string per connection)
};

}  // namespace tiffany::tls
