// WsRawClient: non-blocking socket (and OpenSSL over it), frames encoded and parsed by hand.
#include "integration/websocket/ws_raw_client.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>

#include <openssl/err.h>

#include <cerrno>

#include "integration/echo_client.hpp"

namespace tiffany::testing {
namespace {

using Clock = std::chrono::steady_clock;

constexpr unsigned char kMask[4] = {0x37, 0xfa, 0x21, 0x3d};

int remaining_ms(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left < 0 ? 0 : static_cast<int>(left);
}

}  // namespace

std::uint16_t WsFrame::close_code() const {
  if (payload.size() < 2) return 0;
  return static_cast<std::uint16_t>((static_cast<unsigned char>(payload[0]) << 8) |
                                    static_cast<unsigned char>(payload[1]));
}

std::string WsFrame::close_reason() const { return payload.size() > 2 ? payload.substr(2) : ""; }

std::string ws_frame(std::uint8_t opcode, std::string_view payload, bool fin, bool mask, std::uint8_t rsv) {
  std::string out;
  out += static_cast<char>((fin ? 0x80 : 0) | (rsv & 0x70) | (opcode & 0x0f));
  const char mask_bit = mask ? static_cast<char>(0x80) : 0;
  if (payload.size() < 126) {
    out += static_cast<char>(mask_bit | static_cast<char>(payload.size()));
  } else if (payload.size() <= 0xffff) {
    out += static_cast<char>(mask_bit | 126);
    out += static_cast<char>(payload.size() >> 8);
    out += static_cast<char>(payload.size() & 0xff);
  } else {
    out += static_cast<char>(mask_bit | 127);
    for (int shift = 56; shift >= 0; shift -= 8) out += static_cast<char>((payload.size() >> shift) & 0xff);
  }
  if (!mask) return out.append(payload);
  out.append(reinterpret_cast<const char*>(kMask), 4);
  const std::size_t start = out.size();
  out.append(payload);
  for (std::size_t i = 0; i < payload.size(); ++i) out[start + i] = static_cast<char>(out[start + i] ^ kMask[i % 4]);
  return out;
}

std::string ws_close_frame(std::uint16_t code, std::string_view reason) {
  std::string payload;
  payload += static_cast<char>(code >> 8);
  payload += static_cast<char>(code & 0xff);
  payload.append(reason);
  return ws_frame(0x8, payload);
}

std::string ws_handshake(const std::string& path, const std::string& extra) {
  return "GET " + path +
         " HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
         "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n" +
         extra + "\r\n";
}

WsRawClient::WsRawClient(int port, bool tls) : fd_(connect_loopback(port)) {
  if (!fd_) {
    error_ = "cannot connect";
    return;
  }
  ::fcntl(fd_.get(), F_SETFL, ::fcntl(fd_.get(), F_GETFL) | O_NONBLOCK);
  if (!tls) {
    ok_ = true;
    return;
  }
  ctx_.reset(SSL_CTX_new(TLS_client_method()));
  SSL_CTX_set_verify(ctx_.get(), SSL_VERIFY_NONE, nullptr);
  ssl_.reset(SSL_new(ctx_.get()));
  SSL_set_fd(ssl_.get(), fd_.get());
  SSL_set_tlsext_host_name(ssl_.get(), "localhost");
  SSL_set_mode(ssl_.get(), SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  const auto deadline = Clock::now() + std::chrono::seconds(5);
  for (;;) {
    const int done = SSL_connect(ssl_.get());
    if (done == 1) break;
    const int why = SSL_get_error(ssl_.get(), done);
    if ((why != SSL_ERROR_WANT_READ && why != SSL_ERROR_WANT_WRITE) || Clock::now() >= deadline) {
      error_ = "TLS handshake failed";
      ERR_clear_error();
      return;
    }
    pollfd p{fd_.get(), static_cast<short>(why == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT), 0};
    ::poll(&p, 1, remaining_ms(deadline));
  }
  ok_ = true;
}

WsRawClient::~WsRawClient() { ERR_clear_error(); }

bool WsRawClient::send(std::string_view bytes, std::chrono::milliseconds timeout, std::size_t* sent) {
  const auto deadline = Clock::now() + timeout;
  std::size_t done = 0;
  bool all = true;
  while (done < bytes.size()) {
    short wait_for = POLLOUT;
    if (ssl_) {
      const int n = SSL_write(ssl_.get(), bytes.data() + done, static_cast<int>(bytes.size() - done));
      if (n > 0) {
        done += static_cast<std::size_t>(n);
        continue;
      }
      const int why = SSL_get_error(ssl_.get(), n);
      if (why != SSL_ERROR_WANT_WRITE && why != SSL_ERROR_WANT_READ) {
        ERR_clear_error();
        all = false;
        break;
      }
      if (why == SSL_ERROR_WANT_READ) wait_for = POLLIN;
    } else {
      const ssize_t n = ::send(fd_.get(), bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
      if (n > 0) {
        done += static_cast<std::size_t>(n);
        continue;
      }
      if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
        all = false;
        break;
      }
    }
    if (Clock::now() >= deadline) {
      all = false;
      break;
    }
    pollfd p{fd_.get(), wait_for, 0};
    ::poll(&p, 1, std::min(remaining_ms(deadline), 50));
  }
  if (sent != nullptr) *sent = done;
  return all;
}

bool WsRawClient::fill(std::chrono::milliseconds timeout) {
  if (closed_) return false;
  const auto deadline = Clock::now() + timeout;
  char chunk[16384];
  for (;;) {
    short wait_for = POLLIN;
    if (ssl_) {
      const int n = SSL_read(ssl_.get(), chunk, sizeof chunk);
      if (n > 0) {
        buffer_.append(chunk, static_cast<std::size_t>(n));
        return true;
      }
      const int why = SSL_get_error(ssl_.get(), n);
      if (why != SSL_ERROR_WANT_READ && why != SSL_ERROR_WANT_WRITE) {
        ERR_clear_error();
        closed_ = true;
        return false;
      }
      if (why == SSL_ERROR_WANT_WRITE) wait_for = POLLOUT;
    } else {
      const ssize_t n = ::recv(fd_.get(), chunk, sizeof chunk, 0);
      if (n > 0) {
        buffer_.append(chunk, static_cast<std::size_t>(n));
        return true;
      }
      if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
        closed_ = true;
        return false;
      }
    }
    if (Clock::now() >= deadline) return false;
    pollfd p{fd_.get(), wait_for, 0};
    ::poll(&p, 1, std::min(remaining_ms(deadline), 50));
  }
}

std::string WsRawClient::read_http(std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  for (;;) {
    const std::size_t end = buffer_.find("\r\n\r\n");
    if (end != std::string::npos) {
      std::size_t length = 0;
      const std::string head = buffer_.substr(0, end + 4);
      const std::size_t at = head.find("\r\nContent-Length: ");
      if (at != std::string::npos) length = std::stoul(head.substr(at + 18));
      if (buffer_.size() >= end + 4 + length) {
        std::string response = buffer_.substr(0, end + 4 + length);
        buffer_.erase(0, end + 4 + length);
        return response;
      }
    }
    if (!fill(std::chrono::milliseconds(remaining_ms(deadline)))) {
      if (closed_ || Clock::now() >= deadline) return "";
    }
  }
}

bool WsRawClient::handshake(const std::string& path, const std::string& extra) {
  if (!send(ws_handshake(path, extra))) return false;
  const std::string head = read_http();
  return head.starts_with("HTTP/1.1 101 ") &&
         head.find(std::string("\r\nSec-WebSocket-Accept: ") + kWsSampleAccept + "\r\n") != std::string::npos;
}

std::optional<WsFrame> WsRawClient::read_frame(std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  for (;;) {
    if (buffer_.size() >= 2) {
      const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(buffer_[i]); };
      std::size_t header = 2;
      std::uint64_t length = byte(1) & 0x7f;
      const bool masked = (byte(1) & 0x80) != 0;
      if (length == 126) header = 4;
      if (length == 127) header = 10;
      if (masked) header += 4;
      if (buffer_.size() >= header) {
        if (length == 126) length = (std::uint64_t{byte(2)} << 8) | byte(3);
        if (length == 127) {
          length = 0;
          for (std::size_t i = 2; i < 10; ++i) length = (length << 8) | byte(i);
        }
        if (buffer_.size() >= header + length) {
          WsFrame frame;
          frame.fin = (byte(0) & 0x80) != 0;
          frame.rsv = static_cast<std::uint8_t>(byte(0) & 0x70);
          frame.opcode = static_cast<std::uint8_t>(byte(0) & 0x0f);
          frame.masked = masked;
          frame.payload = buffer_.substr(header, length);
          if (masked) {
            for (std::size_t i = 0; i < length; ++i) {
              frame.payload[i] = static_cast<char>(frame.payload[i] ^ buffer_[header - 4 + i % 4]);
            }
          }
          buffer_.erase(0, header + length);
          return frame;
        }
      }
    }
    if (!fill(std::chrono::milliseconds(remaining_ms(deadline)))) {
      if (closed_ || Clock::now() >= deadline) return std::nullopt;
    }
  }
}

std::optional<WsFrame> WsRawClient::read_data_frame(std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  for (;;) {
    std::optional<WsFrame> frame = read_frame(std::chrono::milliseconds(remaining_ms(deadline)));
    if (!frame || frame->opcode != 0x9) return frame;
    send(ws_frame(0xA, frame->payload));
  }
}

bool WsRawClient::wait_closed(std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  while (!closed_) {
    buffer_.clear();
    if (!fill(std::chrono::milliseconds(remaining_ms(deadline))) && !closed_ && Clock::now() >= deadline) {
      return false;
    }
  }
  return true;
}

bool WsRawClient::peer_hung_up() const {
  pollfd p{fd_.get(), POLLRDHUP, 0};
  return ::poll(&p, 1, 0) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0;
}

}  // namespace tiffany::testing
