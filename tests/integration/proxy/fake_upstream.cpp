// FakeUpstream: accept loop, request framing (head + Content-Length body) and the scripted answers.
#include "fake_upstream.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>

namespace tiffany::testing {
namespace {

std::size_t content_length_of(const std::string& head) {
  std::string lower = head;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const std::size_t at = lower.find("\r\ncontent-length:");
  if (at == std::string::npos) return 0;
  return static_cast<std::size_t>(std::strtoull(lower.c_str() + at + 17, nullptr, 10));
}

}  // namespace

FakeUpstream::FakeUpstream(Answer answer) : answer_(std::move(answer)) {
  acceptor_ = std::thread([this] { accept_loop(); });
}

FakeUpstream::~FakeUpstream() {
  stopping_ = true;
  acceptor_.join();
  for (std::thread& connection : connections_) connection.join();
}

std::vector<std::string> FakeUpstream::requests() const {
  std::lock_guard lock(mutex_);
  return requests_;
}

std::string FakeUpstream::response(int status, const std::string& body, const std::string& extra) {
  return "HTTP/1.1 " + std::to_string(status) + " X\r\nContent-Length: " + std::to_string(body.size()) + "\r\n" +
         extra + "\r\n" + body;
}

bool FakeUpstream::wait_for_close_or_timeout(int fd, int ms) {
  pollfd poller{fd, POLLIN | POLLRDHUP, 0};
  if (::poll(&poller, 1, ms) != 1) return false;
  char byte = 0;
  if (::recv(fd, &byte, 1, MSG_PEEK) > 0) return false;
  ++closed_while_waiting_;
  return true;
}

void FakeUpstream::accept_loop() {
  while (!stopping_) {
    pollfd poller{socket_.fd.get(), POLLIN, 0};
    if (::poll(&poller, 1, 50) != 1) continue;
    const int fd = ::accept4(socket_.fd.get(), nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    ++accepted_;
    std::lock_guard lock(mutex_);
    connections_.emplace_back([this, fd] { serve(fd); });
  }
}

void FakeUpstream::serve(int fd) {
  std::string buffer;
  for (;;) {
    std::size_t head_end = buffer.find("\r\n\r\n");
    while (head_end == std::string::npos || buffer.size() < head_end + 4 + content_length_of(buffer.substr(0, head_end))) {
      pollfd poller{fd, POLLIN, 0};
      if (stopping_ || ::poll(&poller, 1, 100) < 0) {
        ::close(fd);
        return;
      }
      if (poller.revents == 0) continue;
      char chunk[65536];
      const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
      if (n <= 0) {
        ::close(fd);
        return;
      }
      buffer.append(chunk, static_cast<std::size_t>(n));
      head_end = buffer.find("\r\n\r\n");
    }
    const std::size_t size = head_end + 4 + content_length_of(buffer.substr(0, head_end));
    const std::string request = buffer.substr(0, size);
    buffer.erase(0, size);
    {
      std::lock_guard lock(mutex_);
      requests_.push_back(request);
    }
    if (!answer_(fd, request)) {
      ::close(fd);
      return;
    }
  }
}

}  // namespace tiffany::testing
