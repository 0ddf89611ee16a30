// TlsStream: handshake, read, write and close over a BIO pair and io_uring.
#include "server/tls/tls_stream.hpp"

#include <sys/socket.h>

#include <openssl/err.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <new>

#include "reactor/recv.hpp"
#include "reactor/recv_pooled.hpp"
#include "reactor/send.hpp"
#include "server/socket_stream.hpp"

namespace tiffany::tls {
namespace {

// Ciphertext from the peer: one full record (16 KiB + overhead) fits in one Recv.
constexpr std::size_t kInboundBytes = 17 * 1024;
// Ciphertext to the peer: a couple of full records go out in one Send.
constexpr std::size_t kOutboundBytes = 34 * 1024;

int clamp_to_int(std::size_t size) { return static_cast<int>(std::min<std::size_t>(size, INT_MAX)); }

}  // namespace

TlsStream::TlsStream(UniqueFd socket, const TlsContext& context)
    : TlsStream(std::move(socket), context.new_connection()) {
  SSL_set_accept_state(ssl_.get());
}

TlsStream::TlsStream(UniqueFd socket, SslPtr ssl) : socket_(std::move(socket)), ssl_(std::move(ssl)) {
  BIO* inside = nullptr;
  if (BIO_new_bio_pair(&inside, kOutboundBytes, &network_, kInboundBytes) != 1) {
    ERR_clear_error();
    throw std::bad_alloc();
  }
  SSL_set_bio(ssl_.get(), inside, inside);  // the SSL owns `inside` now
}

TlsStream::~TlsStream() {
  ssl_.reset();  // frees `inside`, which leaves `network_` unpaired
  BIO_free(network_);
}

std::string_view TlsStream::alpn() const noexcept {
  const unsigned char* name = nullptr;
  unsigned int length = 0;
  SSL_get0_alpn_selected(ssl_.get(), &name, &length);
  return {reinterpret_cast<const char*>(name), length};
}

bool TlsStream::has_output() const noexcept { return BIO_ctrl_pending(network_) > 0; }

Task<IoResult> TlsStream::fill() {
  char* space = nullptr;
  const int room = BIO_nwrite0(network_, &space);
  // Why it cannot be full: OpenSSL asks for more input only after taking all
  // of the pair's buffered bytes into its own record buffer.
  if (room <= 0) co_return IoResult{-ENOBUFS};
  const IoResult got = co_await Recv{socket_.get(), space, static_cast<std::size_t>(room)};
  if (got && got.bytes() > 0) BIO_nwrite(network_, &space, got.value());
  co_return got;
}

Task<IoResult> TlsStream::flush() {
  for (;;) {
    char* pending = nullptr;
    const int available = BIO_nread0(network_, &pending);
    if (available <= 0) co_return IoResult{0};
    const IoResult sent = co_await Send{socket_.get(), pending, static_cast<std::size_t>(available)};
    if (!sent) co_return sent;
    BIO_nread(network_, &pending, sent.value());
  }
}

Task<IoResult> TlsStream::flush_at_once() {
  if (!send_without_waiting()) co_return IoResult{-EPIPE};
  co_return co_await flush();  // what the socket could not take at once, through the ring
}

bool TlsStream::send_without_waiting() noexcept {
  for (;;) {
    char* pending = nullptr;
    const int available = BIO_nread0(network_, &pending);
    if (available <= 0) return true;
    const ssize_t sent =
        ::send(socket_.get(), pending, static_cast<std::size_t>(available), MSG_DONTWAIT | MSG_NOSIGNAL);
    if (sent < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
    BIO_nread(network_, &pending, static_cast<int>(sent));
  }
}

Task<bool> TlsStream::handshake() {
  for (;;) {
    // Why clear first: the error queue is per thread, shared by every
    // connection of this worker; a stale entry would be read as ours.
    ERR_clear_error();
    const int outcome = SSL_do_handshake(ssl_.get());
    const int error = outcome == 1 ? SSL_ERROR_NONE : SSL_get_error(ssl_.get(), outcome);
    ERR_clear_error();
    if (has_output()) {  // our flight, session tickets, or an alert saying why we gave up
      // Why not just the ring: a Send queued now reaches the kernel only when
      // this loop turn ends, after every other handshake of the turn has done
      // its signing (most of a millisecond with RSA 2048), and the client waits
      // for this flight. One syscall per flight is nothing beside the crypto.
      const IoResult sent = co_await flush_at_once();
      if (!sent) co_return false;
    }
    if (error == SSL_ERROR_NONE) {
      established_ = true;
      co_return true;
    }
    if (error != SSL_ERROR_WANT_READ) co_return false;
    const IoResult got = co_await fill();
    if (!got || got.bytes() == 0) co_return false;
  }
}

Task<IoResult> TlsStream::read(char* data, std::size_t size) {
  for (;;) {
    ERR_clear_error();
    const int n = SSL_read(ssl_.get(), data, clamp_to_int(size));
    if (n > 0) co_return IoResult{n};
    const int error = SSL_get_error(ssl_.get(), n);
    ERR_clear_error();
    if (has_output()) {  // a ticket, a key update answer, or an alert
      const IoResult sent = co_await flush();
      if (!sent) co_return sent;
    }
    if (error == SSL_ERROR_ZERO_RETURN) co_return IoResult{0};  // close_notify
    if (error != SSL_ERROR_WANT_READ && error != SSL_ERROR_WANT_WRITE) co_return IoResult{-EPROTO};
    if (error == SSL_ERROR_WANT_WRITE) continue;  // flushed above: room again
    const IoResult got = co_await fill();
    if (!got || got.bytes() == 0) co_return got;  // reset, or the peer left without close_notify
  }
}

Task<IoResult> TlsStream::write(const char* data, std::size_t size) {
  std::size_t written = 0;
  while (written < size) {
    ERR_clear_error();
    const int n = SSL_write(ssl_.get(), data + written, clamp_to_int(size - written));
    if (n > 0) {
      written += static_cast<std::size_t>(n);
      continue;
    }
    const int error = SSL_get_error(ssl_.get(), n);
    ERR_clear_error();
    if (error != SSL_ERROR_WANT_WRITE) co_return IoResult{-EPROTO};
    const IoResult sent = co_await flush();  // the pair is full: make room
    if (!sent) co_return sent;
  }
  const IoResult sent = co_await flush();
  if (!sent) co_return sent;
  co_return IoResult{clamp_to_int(size)};
}

void TlsStream::finish() noexcept {
  if (established_) {
    ERR_clear_error();
    SSL_shutdown(ssl_.get());  // queues close_notify; we do not wait for the peer's
    ERR_clear_error();
  }
  // Why a plain non-blocking send: finish() cannot wait, and close_notify is a
  // few dozen bytes going out just after a flush emptied the pair, so the
  // socket buffer takes it whole. If not, the peer sees a TCP close instead.
  (void)send_without_waiting();
  finish_socket(socket_.get());
}

Task<IoResult> TlsStream::discard_some() {
  ReadLease dropped;
  co_return co_await RecvPooled{socket_.get(), dropped};
}

}  // namespace tiffany::tls
