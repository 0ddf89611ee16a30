// Raw HTTP/1.1 for integration tests.
#include "raw_http.hpp"

#include <poll.h>
#include <sys/socket.h>

#include "echo_client.hpp"

namespace tiffany::testing {

using Clock = std::chrono::steady_clock;

std::string read_response(int fd, std::chrono::milliseconds timeout) {
  std::string data;
  char buffer[4096];
  const auto deadline = Clock::now() + timeout;
  for (;;) {
    const auto end = data.find("\r\n\r\n");
    if (end != std::string::npos) {
      const auto length_at = data.find("Content-Length: ");
      const std::size_t length = length_at == std::string::npos ? 0 : std::stoul(data.substr(length_at + 16));
      if (data.size() >= end + 4 + length) return data.substr(0, end + 4 + length);
    }
    if (Clock::now() >= deadline) return "";
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;
    const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
    if (n <= 0) return "";
    data.append(buffer, static_cast<std::size_t>(n));
  }
}

bool send_all(int fd, const std::string& bytes) {
  return ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(bytes.size());
}

std::string get_on(int fd, const std::string& path, const std::string& request_id) {
  std::string request = "GET " + path + " HTTP/1.1\r\nHost: t\r\n";
  if (!request_id.empty()) request += "X-Request-Id: " + request_id + "\r\n";
  return send_all(fd, request + "\r\n") ? read_response(fd) : "";
}

std::string get(int port, const std::string& path, const std::string& request_id) {
  const UniqueFd fd = connect_loopback(port);
  return fd ? get_on(fd.get(), path, request_id) : "";
}

int status_of(const std::string& response) {
  return response.size() > 12 && response.starts_with("HTTP/1.1 ") ? std::stoi(response.substr(9, 3)) : 0;
}

std::string body_of(const std::string& response) {
  const auto end = response.find("\r\n\r\n");
  return end == std::string::npos ? "" : response.substr(end + 4);
}

bool says_close(const std::string& response) { return response.find("\r\nConnection: close\r\n") != std::string::npos; }

}  // namespace tiffany::testing
