// FakeUpstream: a scripted HTTP/1.1 server on 127.0.0.1 for proxy tests: it records requests and answers as told.
#pragma once

#include <atomic>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "support/loopback_socket.hpp"

namespace tiffany::testing {

/// Accepts connections on a thread; for each request read on them (head,
/// then a Content-Length body) it calls `answer(fd, request)`, which writes
/// whatever it likes on `fd` and returns true to keep the connection for
/// another request, false to close it.
class FakeUpstream {
 public:
  using Answer = std::function<bool(int fd, const std::string& request)>;
  explicit FakeUpstream(Answer answer);
  FakeUpstream(const FakeUpstream&) = delete;
  FakeUpstream& operator=(const FakeUpstream&) = delete;
  ~FakeUpstream();

  int port() const { return socket_.port(); }
  /// Every request received so far (head and body), in arrival order.
  std::vector<std::string> requests() const;
  /// Connections the proxy closed while the answer was still pending
  /// (see wait_for_close_or_timeout).
  int closed_while_waiting() const { return closed_while_waiting_.load(); }
  /// Connections accepted so far (a pooled connection reused is one).
  int accepted() const { return accepted_.load(); }

  /// For answers: waits up to `ms` for the peer to close `fd`; true if it
  /// did (and counts it in closed_while_waiting()).
  bool wait_for_close_or_timeout(int fd, int ms);

  /// "HTTP/1.1 200 OK" with `body` and Content-Length, plus `extra` fields ("Name: v\r\n").
  static std::string response(int status, const std::string& body, const std::string& extra = "");

 private:
  void accept_loop();
  void serve(int fd);

  LoopbackSocket socket_{true};
  Answer answer_;
  std::atomic<bool> stopping_{false};
  std::atomic<int> closed_while_waiting_{0};
  std::atomic<int> accepted_{0};
  mutable std::mutex mutex_;
  std::vector<std::string> requests_;
  std::vector<std::thread> connections_;
  std::thread acceptor_;
};

}  // namespace tiffany::testing
