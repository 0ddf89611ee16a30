// Echo test clients: poll()-driven send/receive over one socket.
#include "echo_client.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <cerrno>

namespace tiffany::testing {

UniqueFd connect_loopback(int port) {
  UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) return UniqueFd{};
  return fd;
}

std::string echo_roundtrip(int fd, const std::string& payload, bool half_close, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string received;
  std::size_t sent = 0;
  bool write_closed = false;
  bool eof = false;
  char buffer[65536];
  while (std::chrono::steady_clock::now() < deadline) {
    if (sent == payload.size() && half_close && !write_closed) {
      ::shutdown(fd, SHUT_WR);
      write_closed = true;
    }
    const bool want_more = half_close ? !eof : received.size() < payload.size();
    if (!want_more) break;
    pollfd p{fd, static_cast<short>(POLLIN | (sent < payload.size() ? POLLOUT : 0)), 0};
    if (::poll(&p, 1, 1000) < 0 && errno != EINTR) break;
    if ((p.revents & POLLOUT) && sent < payload.size()) {
      const ssize_t n = ::send(fd, payload.data() + sent, payload.size() - sent, MSG_DONTWAIT | MSG_NOSIGNAL);
      if (n > 0)
        sent += static_cast<std::size_t>(n);
      else if (n < 0 && errno != EAGAIN)
        break;
    }
    if (p.revents & (POLLIN | POLLHUP | POLLERR)) {
      const ssize_t n = ::recv(fd, buffer, sizeof buffer, MSG_DONTWAIT);
      if (n > 0)
        received.append(buffer, static_cast<std::size_t>(n));
      else if (n == 0)
        eof = true;
      else if (errno != EAGAIN)
        break;
      if (eof && !half_close) break;
    }
  }
  return received;
}

}  // namespace tiffany::testing
