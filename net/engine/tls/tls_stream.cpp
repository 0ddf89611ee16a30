// TlsStream: handshake, read, write and close over CiphertextBuffers and io_uring.
#include "net/engine/tls/tls_stream.hpp"

#include <sys/socket.h>

#include <openssl/err.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <new>

#include <tiffany/net/socket_stream.hpp>
#include <tiffany/reactor/recv_pooled.hpp>
#include <tiffany/reactor/send.hpp>
#include <tiffany/reactor/socket_calls.hpp>

#include "reactor/engine/spare_read_buffers.hpp"

namespace tiffany::tls {
namespace {

int clamp_to_int(std::size_t size) { return static_cast<int>(std::min<std::size_t>(size, INT_MAX)); }

}  // namespace

TlsStream::TlsStream(int fd, SSL_CTX* context, ReadLease hello) : fd_(fd) {
  SslPtr ssl(SSL_new(context));
  if (!ssl) {
    ERR_clear_error();
    throw std::bad_alloc();
  }
  attach(std::move(ssl));
  SSL_set_accept_state(ssl_.get());
  ciphertext_.add_input(std::move(hello));
}

TlsStream::TlsStream(UniqueFd socket, SslPtr ssl) : owned_(std::move(socket)), fd_(owned_.get()) {
  attach(std::move(ssl));
}

TlsStream::~TlsStream() {
  ssl_.reset();  // frees the BIO before the buffers it points at
}

void TlsStream::attach(SslPtr ssl) {
  ssl_ = std::move(ssl);
  BIO* bio = ciphertext_.new_bio();
  SSL_set_bio(ssl_.get(), bio, bio);  // the SSL owns it now (one reference for both directions)
}

std::string_view TlsStream::alpn() const noexcept {
  const unsigned char* name = nullptr;
  unsigned int length = 0;
  SSL_get0_alpn_selected(ssl_.get(), &name, &length);
  return {reinterpret_cast<const char*>(name), length};
}

bool TlsStream::has_buffered_input() const noexcept { return ciphertext_.has_input() || SSL_pending(ssl_.get()) > 0; }

Task<IoResult> TlsStream::fill() {
  // Why it is empty: OpenSSL asks for more input only after reading all it had.
  if (ciphertext_.has_input()) co_return IoResult{clamp_to_int(ciphertext_.input_size())};
  ReadLease received;
  const IoResult got = co_await RecvPooled{fd_, received};
  if (got && got.bytes() > 0) ciphertext_.add_input(std::move(received));
  co_return got;
}

Task<IoResult> TlsStream::flush() {
  // Why take turns: two sends of the same pending bytes would put them on
  // the wire twice. The one under way sends until nothing is pending, so
  // what this one has to send is usually gone by the time it wakes.
  if (!flush_turn_) flush_turn_ = std::make_shared<FlushTurn>();
  const std::shared_ptr<FlushTurn> turns = flush_turn_;  // outlives the stream if it must (see FlushTurn)
  while (turns->flushing) co_await turns->flushed.wait();
  // Hands the turn on however this flush ends, a cancellation included.
  struct Turn {
    FlushTurn& turns;
    explicit Turn(FlushTurn& state) noexcept : turns(state) { turns.flushing = true; }
    ~Turn() {
      turns.flushing = false;
      turns.flushed.set();
    }
  } turn(*turns);
  for (;;) {
    const std::string_view pending = ciphertext_.output();
    if (pending.empty()) co_return IoResult{0};
    const IoResult sent = co_await Send{fd_, pending.data(), pending.size()};
    if (!sent) co_return sent;
    ciphertext_.consume_output(sent.bytes());
  }
}

Task<IoResult> TlsStream::flush_at_once() {
  if (!send_without_waiting()) co_return IoResult{-EPIPE};
  co_return co_await flush();  // what the socket could not take at once, through the ring
}

bool TlsStream::send_without_waiting() noexcept {
  for (;;) {
    const std::string_view pending = ciphertext_.output();
    if (pending.empty()) return true;
    const ssize_t sent = SocketCalls::current().send(fd_, pending.data(), pending.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
    if (sent < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
    ciphertext_.consume_output(static_cast<std::size_t>(sent));
  }
}

Task<bool> TlsStream::handshake() {
  for (;;) {
    // Why clear first: the error queue is per thread, shared by every
    // connection of this worker; a stale entry would be read as ours.
    ERR_clear_error();
    const int outcome = SSL_do_handshake(ssl_.get());
    const int error = outcome == 1 ? SSL_ERROR_NONE : SSL_get_error(ssl_.get(), outcome);
    if (error == SSL_ERROR_SSL) failure_ = ERR_peek_error();  // kept for handshake_failure()
    ERR_clear_error();
    if (ciphertext_.has_output()) {  // our flight, session tickets, or an alert saying why we gave up
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
    if (error == SSL_ERROR_WANT_WRITE) continue;  // flushed above: room again
    if (error != SSL_ERROR_WANT_READ) co_return false;
    const IoResult got = co_await fill();
    if (!got || got.bytes() == 0) co_return false;
  }
}

std::string TlsStream::handshake_failure() const {
  if (failure_ == 0) return {};
  const char* reason = ERR_reason_error_string(failure_);
  return reason != nullptr ? reason : "OpenSSL error " + std::to_string(failure_);
}

Task<IoResult> TlsStream::read(char* data, std::size_t size) { return decrypt(data, size, nullptr); }

Task<IoResult> TlsStream::read_pooled(ReadLease& lease) { return decrypt(nullptr, kReadBufferSize, &lease); }

Task<IoResult> TlsStream::decrypt(char* data, std::size_t size, ReadLease* lease) {
  bool retry = false;  // OpenSSL asked to retry after a flush: no need to wait for the socket
  for (;;) {
    if (!retry && !has_buffered_input()) {
      const IoResult got = co_await fill();  // holding no buffer of ours
      if (!got || got.bytes() == 0) co_return got;  // reset, or the peer left without close_notify
    }
    ReadLease plaintext;
    if (lease != nullptr) {
      plaintext = SpareReadBuffers::for_this_thread().take();
      data = plaintext.data();
    }
    ERR_clear_error();
    const int n = SSL_read(ssl_.get(), data, clamp_to_int(size));
    if (n > 0) {
      if (lease != nullptr) {
        plaintext.set_size(static_cast<std::size_t>(n));
        *lease = std::move(plaintext);
      }
      co_return IoResult{n};
    }
    plaintext.reset();  // back before any wait: a record cut short must not pin it
    const int error = SSL_get_error(ssl_.get(), n);
    ERR_clear_error();
    if (ciphertext_.has_output()) {  // a ticket, a key update answer, or an alert
      const IoResult sent = co_await flush();
      if (!sent) co_return sent;
    }
    if (error == SSL_ERROR_ZERO_RETURN) co_return IoResult{0};  // close_notify
    if (error != SSL_ERROR_WANT_READ && error != SSL_ERROR_WANT_WRITE) co_return IoResult{-EPROTO};
    retry = error == SSL_ERROR_WANT_WRITE;
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
    const IoResult sent = co_await flush();  // the outbound buffers are full: make room
    if (!sent) co_return sent;
  }
  const IoResult sent = co_await flush();
  if (!sent) co_return sent;
  co_return IoResult{clamp_to_int(size)};
}

void TlsStream::finish() noexcept {
  send_close_notify();
  finish_socket(fd_);
}

void TlsStream::shutdown_write() noexcept {
  send_close_notify();
  SocketCalls::current().shutdown(fd_, SHUT_WR);
}

void TlsStream::send_close_notify() noexcept {
  if (established_) {
    ERR_clear_error();
    SSL_shutdown(ssl_.get());  // queues close_notify; we do not wait for the peer's
    ERR_clear_error();
  }
  // Why a plain non-blocking send: this cannot wait, and close_notify is a
  // few dozen bytes going out just after a flush emptied the buffers, so the
  // socket buffer takes it whole. If not, the peer sees a TCP close instead.
  (void)send_without_waiting();
}

Task<IoResult> TlsStream::discard_some() {
  ReadLease dropped;
  co_return co_await RecvPooled{fd_, dropped};
}

}  // namespace tiffany::tls
