// ClientConnection: the socket lookup behind a stream and the idle liveness peek.
#include "client/internal/client_connection.hpp"

#include <sys/socket.h>

#include <cerrno>

#include <tiffany/reactor/reactor.hpp>
#include <tiffany/reactor/socket_calls.hpp>

namespace tiffany::detail {

ClientConnection::ClientConnection(std::unique_ptr<ByteStream> stream, std::string origin_key,
                                   const http::ResponseLimits& limits)
    : stream_(std::move(stream)),
      fd_(stream_->socket()),
      tls_(stream_->encrypted()),
      origin_key_(std::move(origin_key)),
      parser_(limits),
      buffer_(std::make_unique<char[]>(kFirstBufferSize)) {
}

char* ClientConnection::read_space() {
  begin_ = end_ = 0;
  if (filled_ && capacity_ < kLargestBufferSize) {
    capacity_ *= 2;
    buffer_ = std::make_unique_for_overwrite<char[]>(capacity_);
  }
  filled_ = false;
  return buffer_.get();
}

void ClientConnection::shrink_buffer() {
  filled_ = false;
  if (capacity_ == kFirstBufferSize || begin_ != end_) return;
  capacity_ = kFirstBufferSize;
  buffer_ = std::make_unique_for_overwrite<char[]>(capacity_);
}

void ClientConnection::watch_idle() {
  input_before_request_ = false;
  fired_while_idle_ = false;
  if (fd_ < 0 || tls_ || (watch_ && watch_->in_flight())) return;  // unwatched: the peek decides
  watch_.emplace(fd_);
  watch_->start_detached(&ClientConnection::on_watch_fired, this);
  watching_ = true;
}

void ClientConnection::stop_watching() noexcept {
  if (!watching_) return;
  watching_ = false;
  if (watch_ && watch_->in_flight()) Reactor::current().cancel_async(*watch_);
}

void ClientConnection::on_watch_fired(IoOperation& op, void* self) noexcept {
  auto& connection = *static_cast<ClientConnection*>(self);
  if (op.result().error() == ECANCELED) return;  // taken for a request: the usual end
  // Why any other answer kills it: readable while idle means bytes nobody
  // asked for, or EOF, or an error; the connection cannot serve a request.
  if (connection.watching_) {
    connection.fired_while_idle_ = true;
  } else {
    connection.input_before_request_ = true;
  }
}

bool ClientConnection::usable_after_idle() const noexcept {
  if (begin_ != end_) return false;  // bytes nobody asked for
  if (watching_) return !fired_while_idle_;
  if (fd_ < 0) return true;          // unknown stream: the request's retry covers a dead one
  char byte;
  const ssize_t got = SocketCalls::current().recv(fd_, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  if (got < 0) return errno == EAGAIN || errno == EWOULDBLOCK;
  // Why TLS tolerates bytes: a TLS 1.3 server sends session tickets after the
  // handshake, unasked; a close_notify among them makes the request fail
  // before any response byte, which the one retry covers.
  return got > 0 && tls_;
}

}  // namespace tiffany::detail
