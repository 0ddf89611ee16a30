// Raw-socket HTTP exchanges for the proxy tests.
#include "proxy_client.hpp"

#include <poll.h>
#include <sys/socket.h>

#include <cstdlib>
#include <utility>

#include "../echo_client.hpp"

namespace tiffany::testing {

bool send_all(int fd, const std::string& bytes) {
  std::size_t sent = 0;
  while (sent < bytes.size()) {
    const ssize_t n = ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return false;
    sent += static_cast<std::size_t>(n);
  }
  return true;
}

std::string http_exchange(int port, const std::string& raw, std::chrono::milliseconds timeout) {
  const UniqueFd fd = connect_loopback(port);
  if (!fd.valid() || !send_all(fd.get(), raw)) return "<no connection>";
  return http_exchange_rest(fd.get(), timeout);
}

std::string http_exchange_rest(int fd, std::chrono::milliseconds timeout) {
  std::string got;
  const auto until = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
    if (left.count() <= 0) return got + "<timeout>";
    pollfd poller{fd, POLLIN, 0};
    if (::poll(&poller, 1, static_cast<int>(left.count())) != 1) continue;
    char buffer[65536];
    const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
    if (n <= 0) return got;
    got.append(buffer, static_cast<std::size_t>(n));
  }
}

std::string get_request(const std::string& path, const std::string& extra) {
  return "GET " + path + " HTTP/1.1\r\nHost: example.test\r\nConnection: close\r\n" + extra + "\r\n";
}

int status_of(const std::string& response) {
  if (response.rfind("HTTP/1.1 ", 0) != 0) return 0;
  return std::atoi(response.c_str() + 9);
}

std::string body_of(const std::string& response) {
  const std::size_t end = response.find("\r\n\r\n");
  return end == std::string::npos ? "" : response.substr(end + 4);
}

std::optional<std::string> dechunk(const std::string& body) {
  std::string payload;
  std::size_t at = 0;
  for (;;) {
    const std::size_t line_end = body.find("\r\n", at);
    if (line_end == std::string::npos) return std::nullopt;
    char* digits_end = nullptr;
    const unsigned long long size = std::strtoull(body.c_str() + at, &digits_end, 16);
    if (digits_end == body.c_str() + at) return std::nullopt;  // no size
    at = line_end + 2;
    if (size == 0) {
      // Trailer fields (if any), then the empty line that ends the body.
      if (body.find("\r\n\r\n", line_end) == std::string::npos) return std::nullopt;
      return payload;
    }
    if (body.size() < at + size + 2 || body.compare(at + size, 2, "\r\n") != 0) return std::nullopt;
    payload.append(body, at, size);
    at += size + 2;
  }
}

}  // namespace tiffany::testing
