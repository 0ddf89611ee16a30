// Test helper: a loopback HTTP/1.1 upstream on its own threads, answering each request with canned bytes and counting
// connections.
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "support/loopback_socket.hpp"

namespace tiffany::testing {

/// A request as the upstream read it (the body decoded from chunks).
struct UpstreamRequest {
  std::string head;  ///< request line and fields, as received
  std::string body;
  int connection = 0;  ///< 1 for the first accepted connection, …
  int index = 0;       ///< 1 for the first request on its connection, …
  bool chunked = false;
};

/// What the upstream does with a request.
struct UpstreamReply {
  std::string bytes;                   ///< sent as they are (may be empty)
  bool close = false;                  ///< then close the connection
  bool stall = false;                  ///< then wait, sending nothing more, until the client closes
  std::chrono::milliseconds delay{0};  ///< before sending
  std::string stray{};                 ///< sent `stray_after` later, unasked (while the client idles)
  std::chrono::milliseconds stray_after{0};
};

/// Listens on 127.0.0.1:<free port>; one thread per connection, blocking
/// sockets. Counts connections accepted and connections the client closed.
class ScriptedUpstream {
 public:
  using Responder = std::function<UpstreamReply(const UpstreamRequest&)>;

  explicit ScriptedUpstream(Responder responder) : responder_(std::move(responder)) {
    acceptor_ = std::thread([this] { accept_loop(); });
  }
  ScriptedUpstream(const ScriptedUpstream&) = delete;
  ScriptedUpstream& operator=(const ScriptedUpstream&) = delete;
  ~ScriptedUpstream() {
    stopping_ = true;
    ::shutdown(listener_.fd.get(), SHUT_RDWR);
    acceptor_.join();
    {
      std::lock_guard lock(mutex_);
      for (int fd : open_) ::shutdown(fd, SHUT_RDWR);
    }
    for (auto& thread : threads_) thread.join();
  }

  int port() const { return listener_.port(); }
  std::string url(const std::string& path = "/") const { return "http://127.0.0.1:" + std::to_string(port()) + path; }
  int connections() const { return connections_.load(); }
  int requests() const { return requests_.load(); }
  /// Connections on which the upstream saw the client close (EOF or reset).
  int client_closes() const { return client_closes_.load(); }
  /// Waits (up to 2 s) until client_closes() reaches `count`.
  bool wait_client_closes(int count) const {
    for (int i = 0; i < 200 && client_closes() < count; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    return client_closes() >= count;
  }
  /// Every request received, in order.
  std::vector<UpstreamRequest> received() const {
    std::lock_guard lock(mutex_);
    return received_;
  }

 private:
  void accept_loop() {
    for (;;) {
      const int fd = ::accept4(listener_.fd.get(), nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) return;
      if (stopping_) {
        ::close(fd);
        return;
      }
      const int number = ++connections_;
      std::lock_guard lock(mutex_);
      open_.push_back(fd);
      threads_.emplace_back([this, fd, number] {
        serve(fd, number);
        std::lock_guard inner(mutex_);
        std::erase(open_, fd);
        ::close(fd);
      });
    }
  }

  // Reads into `buffer` until it holds `size` bytes; false at EOF or error.
  static bool fill(int fd, std::string& buffer, std::size_t size) {
    char data[16384];
    while (buffer.size() < size) {
      const ssize_t got = ::recv(fd, data, sizeof data, 0);
      if (got <= 0) return false;
      buffer.append(data, static_cast<std::size_t>(got));
    }
    return true;
  }
  static bool fill_until(int fd, std::string& buffer, std::string_view marker, std::size_t from, std::size_t& at) {
    char data[16384];
    while ((at = buffer.find(marker, from)) == std::string::npos) {
      const ssize_t got = ::recv(fd, data, sizeof data, 0);
      if (got <= 0) return false;
      buffer.append(data, static_cast<std::size_t>(got));
    }
    return true;
  }
  static std::string lower(std::string text) {
    for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return text;
  }

  void serve(int fd, int number) {
    std::string buffer;
    for (int index = 1;; ++index) {
      std::size_t end = 0;
      if (!fill_until(fd, buffer, "\r\n\r\n", 0, end)) break;
      UpstreamRequest request;
      request.connection = number;
      request.index = index;
      request.head = buffer.substr(0, end + 4);
      buffer.erase(0, end + 4);
      const std::string head = lower(request.head);
      if (head.find("transfer-encoding: chunked") != std::string::npos) {
        request.chunked = true;
        for (;;) {
          std::size_t line = 0;
          if (!fill_until(fd, buffer, "\r\n", 0, line)) return closed();
          const std::size_t size = std::stoul(buffer.substr(0, line), nullptr, 16);
          buffer.erase(0, line + 2);
          if (!fill(fd, buffer, size + 2)) return closed();
          request.body += buffer.substr(0, size);
          buffer.erase(0, size + 2);
          if (size == 0) break;
        }
      } else if (const std::size_t at = head.find("content-length: "); at != std::string::npos) {
        const std::size_t size = std::stoul(head.substr(at + 16));
        if (!fill(fd, buffer, size)) return closed();
        request.body = buffer.substr(0, size);
        buffer.erase(0, size);
      }
      {
        std::lock_guard lock(mutex_);
        received_.push_back(request);
      }
      ++requests_;
      const UpstreamReply reply = responder_(request);
      if (reply.delay.count() > 0) std::this_thread::sleep_for(reply.delay);
      if (!reply.bytes.empty() && ::send(fd, reply.bytes.data(), reply.bytes.size(), MSG_NOSIGNAL) < 0) return;
      if (!reply.stray.empty()) {
        std::this_thread::sleep_for(reply.stray_after);
        if (::send(fd, reply.stray.data(), reply.stray.size(), MSG_NOSIGNAL) < 0) return;
      }
      if (reply.close) return;
      if (reply.stall) {
        char data[4096];
        while (::recv(fd, data, sizeof data, 0) > 0) {
        }
        return closed();
      }
    }
    closed();
  }
  void closed() {
    if (!stopping_) ++client_closes_;
  }

  Responder responder_;
  LoopbackSocket listener_{true};
  std::thread acceptor_;
  mutable std::mutex mutex_;
  std::vector<std::thread> threads_;
  std::vector<int> open_;
  std::vector<UpstreamRequest> received_;
  std::atomic<int> connections_{0};
  std::atomic<int> requests_{0};
  std::atomic<int> client_closes_{0};
  std::atomic<bool> stopping_{false};
};

/// A 200 with a sized body.
inline UpstreamReply ok_reply(const std::string& body) {
  return UpstreamReply{"HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body};
}

}  // namespace tiffany::testing
