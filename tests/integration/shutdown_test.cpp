// Graceful shutdown and connection limits, through the real binary.
#include <signal.h>
#include <sys/socket.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "echo_client.hpp"
#include "raw_http.hpp"
#include "server_process.hpp"

namespace tiffany::testing {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

const std::string kSite = R"({"drain_timeout_ms": 5000, "listeners": [{"name": "web", "address": "127.0.0.1:0",
    "protocol": "http", "routes": [
      {"method": "GET", "path": "/plaintext", "handler": "text", "body": "Hello, World!"},
      {"method": "POST", "path": "/echo", "handler": "echo"}]}]})";

TEST(Shutdown, EveryRequestSentBeforeSigtermGetsACompleteResponse) {
  ServerProcess server(kSite);
  const int port = server.port_of("web");
  ASSERT_GT(port, 0);
  std::atomic<bool> signaled{false};
  Clock::time_point signal_time;
  std::mutex mutex;
  int unanswered_before_signal = 0;
  int answered = 0;
  std::vector<std::thread> clients;
  for (int c = 0; c < 8; ++c) {
    clients.emplace_back([&] {
      UniqueFd fd = connect_loopback(port);
      const std::string request = "GET /plaintext HTTP/1.1\r\nHost: t\r\n\r\n";
      for (;;) {
        const auto sent_at = Clock::now();
        const bool sent_before_signal = !signaled.load();
        if (::send(fd.get(), request.data(), request.size(), MSG_NOSIGNAL) <= 0) return;
        const std::string response = read_response(fd.get());
        std::lock_guard lock(mutex);
        if (response.find("Hello, World!") == std::string::npos) {
          if (sent_before_signal && sent_at < signal_time + 0ms) ++unanswered_before_signal;
          return;
        }
        ++answered;
        if (says_close(response)) return;  // the server said this was the last one
      }
    });
  }
  std::this_thread::sleep_for(300ms);
  {
    std::lock_guard lock(mutex);
    signal_time = Clock::now();
    signaled = true;
  }
  server.send_signal(SIGTERM);
  for (auto& client : clients) client.join();
  EXPECT_EQ(server.wait_for_exit(6s), 0) << server.err();
  EXPECT_GT(answered, 100);
  EXPECT_EQ(unanswered_before_signal, 0);
  EXPECT_NE(server.err().find("SIGTERM received, draining"), std::string::npos) << server.err();
}

TEST(Shutdown, ARequestInFlightIsFinishedAndTheListenerClosed) {
  ServerProcess server(kSite);
  const int port = server.port_of("web");
  UniqueFd fd = connect_loopback(port);
  const std::string head = "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 10\r\n\r\n";
  ::send(fd.get(), head.data(), head.size(), MSG_NOSIGNAL);
  ::send(fd.get(), "01234", 5, MSG_NOSIGNAL);  // half the body
  std::this_thread::sleep_for(100ms);
  server.send_signal(SIGTERM);
  std::this_thread::sleep_for(300ms);
  EXPECT_FALSE(connect_loopback(port)) << "the listener still accepts during the drain";
  ::send(fd.get(), "56789", 5, MSG_NOSIGNAL);  // the rest arrives during the drain
  const std::string response = read_response(fd.get());
  EXPECT_NE(response.find("\r\n\r\n0123456789"), std::string::npos) << response;
  EXPECT_TRUE(says_close(response)) << "the last response must say Connection: close";
  EXPECT_EQ(server.wait_for_exit(6s), 0);
}

TEST(Shutdown, ASecondSignalExitsAtOnce) {
  ServerProcess server(R"({"drain_timeout_ms": 60000, "listeners": [{"name": "web", "address": "127.0.0.1:0",
      "protocol": "http", "routes": [{"method": "POST", "path": "/echo", "handler": "echo"}]}]})");
  const int port = server.port_of("web");
  UniqueFd fd = connect_loopback(port);
  const std::string head = "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 10\r\n\r\n01234";
  ::send(fd.get(), head.data(), head.size(), MSG_NOSIGNAL);  // a request that will never finish
  std::this_thread::sleep_for(100ms);
  server.send_signal(SIGTERM);
  std::this_thread::sleep_for(200ms);
  const auto start = Clock::now();
  server.send_signal(SIGTERM);
  EXPECT_EQ(server.wait_for_exit(5s), 0);
  EXPECT_LT(Clock::now() - start, 2s);
  EXPECT_NE(server.err().find("second SIGTERM: exiting now"), std::string::npos) << server.err();
}

// As nginx does: a shutdown answers every connection already queued on a listening socket, not
// just the first few (the kernel resets what is left queued when the socket closes). The connection
// limit keeps them queued: the one slot is held by an idle keep-alive connection.
TEST(Shutdown, EveryConnectionQueuedAtTheShutdownIsAnswered) {
  ServerProcess server(R"({"workers": 1, "max_connections": 1, "drain_timeout_ms": 10000, "listeners": [
      {"name": "web", "address": "127.0.0.1:0", "protocol": "http",
       "routes": [{"method": "GET", "path": "/plaintext", "handler": "text", "body": "Hello, World!"}]}]})");
  const int port = server.port_of("web");
  ASSERT_GT(port, 0);
  UniqueFd held = connect_loopback(port);
  const std::string request = "GET /plaintext HTTP/1.1\r\nHost: t\r\n\r\n";
  ::send(held.get(), request.data(), request.size(), MSG_NOSIGNAL);
  ASSERT_NE(read_response(held.get()).find("Hello, World!"), std::string::npos);  // served, kept open
  constexpr int kQueued = 300;
  std::vector<UniqueFd> queued;
  for (int i = 0; i < kQueued; ++i) {
    queued.push_back(connect_loopback(port));
    ASSERT_TRUE(queued.back()) << "connection " << i;
    ::send(queued.back().get(), request.data(), request.size(), MSG_NOSIGNAL);
  }
  server.send_signal(SIGTERM);
  int answered = 0;
  for (UniqueFd& fd : queued) {
    if (read_response(fd.get(), 10s).find("Hello, World!") != std::string::npos) ++answered;
  }
  EXPECT_EQ(answered, kQueued) << "queued connections were reset at the shutdown";
  EXPECT_EQ(server.wait_for_exit(15s), 0) << server.err();
}

TEST(Limits, AcceptPausesAtTheConnectionLimitAndResumes) {
  ServerProcess server(R"({"workers": 1, "max_connections": 3, "listeners": [{"name": "web",
      "address": "127.0.0.1:0", "protocol": "http",
      "routes": [{"method": "GET", "path": "/plaintext", "handler": "text", "body": "Hello, World!"}]}]})");
  const int port = server.port_of("web");
  const std::string request = "GET /plaintext HTTP/1.1\r\nHost: t\r\n\r\n";
  std::vector<UniqueFd> held;
  for (int i = 0; i < 3; ++i) {
    held.push_back(connect_loopback(port));
    ::send(held.back().get(), request.data(), request.size(), MSG_NOSIGNAL);
    ASSERT_NE(read_response(held.back().get()).find("Hello"), std::string::npos);  // served, kept open
  }
  UniqueFd waiting = connect_loopback(port);  // the kernel queues it; the server does not accept it yet
  ::send(waiting.get(), request.data(), request.size(), MSG_NOSIGNAL);
  EXPECT_EQ(read_response(waiting.get(), 500ms), "") << "served past the limit";
  held.pop_back();  // one leaves
  EXPECT_NE(read_response(waiting.get(), 3s).find("Hello, World!"), std::string::npos);
}

TEST(Limits, EveryListenerKeepsAcceptingAfterTheLimitIsReached) {
  ServerProcess server(R"({"workers": 1, "max_connections": 2, "listeners": [
      {"name": "a", "address": "127.0.0.1:0", "protocol": "http",
       "routes": [{"method": "GET", "path": "/plaintext", "handler": "text", "body": "Hello, World!"}]},
      {"name": "b", "address": "127.0.0.1:0", "protocol": "http",
       "routes": [{"method": "GET", "path": "/plaintext", "handler": "text", "body": "Hello, World!"}]}]})");
  const int port_a = server.port_of("a");
  const int port_b = server.port_of("b");
  const std::string request = "GET /plaintext HTTP/1.1\r\nHost: t\r\n\r\n";
  for (int round = 0; round < 3; ++round) {  // fill the limit from both listeners, then free it
    std::vector<UniqueFd> held;
    for (int port : {port_a, port_b}) {
      held.push_back(connect_loopback(port));
      ::send(held.back().get(), request.data(), request.size(), MSG_NOSIGNAL);
    }
    for (UniqueFd& fd : held) {
      EXPECT_NE(read_response(fd.get(), 3s).find("Hello"), std::string::npos) << "round " << round;
    }
    UniqueFd over_a = connect_loopback(port_a);  // both accept loops now wait for room
    UniqueFd over_b = connect_loopback(port_b);
    std::this_thread::sleep_for(100ms);
  }
  for (int port : {port_a, port_b}) {  // and both still serve
    UniqueFd fd = connect_loopback(port);
    ::send(fd.get(), request.data(), request.size(), MSG_NOSIGNAL);
    EXPECT_NE(read_response(fd.get(), 3s).find("Hello"), std::string::npos) << "port " << port;
  }
}

}  // namespace
}  // namespace tiffany::testing
