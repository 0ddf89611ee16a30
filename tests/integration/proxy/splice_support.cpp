// Splice test helpers: patterned bodies, sized responses off one connection, the counter, pipes in /proc.
#include "splice_support.hpp"

#include <dirent.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>

#include "../prometheus_text.hpp"
#include "proxy_client.hpp"

namespace tiffany::testing {

std::string pattern_body(std::size_t size) {
  std::string body(size, '\0');
  std::uint32_t state = static_cast<std::uint32_t>(size) * 2654435761u + 1;
  for (std::size_t i = 0; i < size; ++i) {
    state = state * 1664525u + 1013904223u;  // a linear congruential sequence: cheap, never a short cycle
    body[i] = static_cast<char>(state >> 24);
  }
  return body;
}

long long content_length_of(const std::string& head) {
  std::string lower = head;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const std::size_t at = lower.find("\r\ncontent-length:");
  if (at == std::string::npos) return -1;
  return std::strtoll(lower.c_str() + at + 17, nullptr, 10);
}

namespace {

// Appends what arrives to `into`; false when the peer closed (or 20 s passed with nothing).
bool receive_more(int fd, std::string& into) {
  pollfd poller{fd, POLLIN, 0};
  if (::poll(&poller, 1, 20000) != 1) return false;
  char buffer[256 * 1024];
  const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
  if (n <= 0) return false;
  into.append(buffer, static_cast<std::size_t>(n));
  return true;
}

}  // namespace

ReadResponse read_response(int fd, bool head_request) {
  ReadResponse response;
  std::string got;
  std::size_t end = std::string::npos;
  while ((end = got.find("\r\n\r\n")) == std::string::npos) {
    if (!receive_more(fd, got)) {
      response.head = got;
      response.closed = true;
      return response;
    }
  }
  response.head = got.substr(0, end + 4);
  response.body = got.substr(end + 4);
  const int status = status_of(response.head);
  const long long length = content_length_of(response.head);
  const bool bodiless = head_request || status == 204 || status == 304 || length < 0;
  const auto want = bodiless ? 0 : static_cast<std::size_t>(length);
  response.body.reserve(want);
  while (response.body.size() < want) {
    if (!receive_more(fd, response.body)) {
      response.closed = true;
      return response;
    }
  }
  return response;
}

double spliced_bytes(int port) {
  const std::string text = body_of(http_exchange(port, get_request("/metrics")));
  double sum = 0;
  for (const auto& [sample, value] : parse_prometheus(text)) {
    if (sample.rfind("tiffany_proxy_spliced_bytes_total{upstream=\"app\"", 0) == 0) sum += value;
  }
  return sum;
}

int open_pipes(pid_t pid) {
  const std::string folder = "/proc/" + std::to_string(pid) + "/fd";
  DIR* dir = ::opendir(folder.c_str());
  if (dir == nullptr) return -1;
  int pipes = 0;
  while (const dirent* entry = ::readdir(dir)) {
    char target[256];
    const std::string link = folder + "/" + entry->d_name;
    const ssize_t n = ::readlink(link.c_str(), target, sizeof target - 1);
    if (n > 0 && std::string(target, static_cast<std::size_t>(n)).rfind("pipe:", 0) == 0) ++pipes;
  }
  ::closedir(dir);
  return pipes;
}

}  // namespace tiffany::testing
