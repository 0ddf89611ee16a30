// A listener's own connection limits: in all (so one listener cannot take the
// worker's whole pool) and per client address (the connection past it is closed).
#include <poll.h>
#include <sys/socket.h>

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "echo_client.hpp"
#include "prometheus_text.hpp"
#include "server_process.hpp"

namespace tiffany::testing {
namespace {

using namespace std::chrono_literals;

// One keep-alive GET /plaintext on `fd`; the status line, or what went wrong.
std::string plaintext(int fd, std::chrono::milliseconds patience = 2000ms) {
  const std::string request = "GET /plaintext HTTP/1.1\r\nHost: t\r\n\r\n";
  if (::send(fd, request.data(), request.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(request.size())) {
    return "send failed";
  }
  std::string reply;
  char buffer[4096];
  while (reply.find("Hello, World!") == std::string::npos) {
    pollfd ready{fd, POLLIN, 0};
    if (::poll(&ready, 1, static_cast<int>(patience.count())) != 1) return "timed out: " + reply;
    const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
    if (n <= 0) return "closed: " + reply;
    reply.append(buffer, static_cast<std::size_t>(n));
  }
  return reply.substr(0, reply.find("\r\n"));
}

// True if the server closes `fd` (EOF or reset) within `patience`, sending nothing.
bool closed_unanswered(int fd, std::chrono::milliseconds patience = 2000ms) {
  pollfd ready{fd, POLLIN, 0};
  if (::poll(&ready, 1, static_cast<int>(patience.count())) != 1) return false;
  char byte;
  return ::recv(fd, &byte, 1, 0) <= 0;
}

TEST(ConnectionLimits, AListenersOwnLimitLeavesTheOtherListenersRoom) {
  // One worker with room for 100 connections; the echo listener may take 20.
  ServerProcess server(R"({"workers": 1, "max_connections": 100, "listeners": [
      {"name": "echo", "address": "127.0.0.1:0", "protocol": "echo", "limits": {"max_connections": 20}},
      {"name": "web", "address": "127.0.0.1:0", "protocol": "http",
       "routes": [{"method": "GET", "path": "/plaintext", "handler": "text", "body": "Hello, World!"}]}]})");
  const int echo_port = server.port_of("echo");
  const int web_port = server.port_of("web");
  ASSERT_GT(echo_port, 0);
  ASSERT_GT(web_port, 0);
  std::vector<UniqueFd> silent;
  for (int i = 0; i < 100; ++i) {  // enough to fill the whole pool, were they all accepted
    silent.push_back(connect_loopback(echo_port));
    ASSERT_TRUE(silent.back()) << "connection " << i;
  }
  std::this_thread::sleep_for(200ms);
  UniqueFd web = connect_loopback(web_port);
  EXPECT_EQ(plaintext(web.get()), "HTTP/1.1 200 OK") << "the echo listener starved the web listener";
  // The 21st echo connection waits for room; it gets it when one of the first 20 leaves.
  EXPECT_EQ(echo_roundtrip(silent[20].get(), "waiting", false, 300ms), "");
  silent[0].reset();
  // Both copies of "waiting" come back, together or not.
  EXPECT_EQ(echo_roundtrip(silent[20].get(), "waiting", false, 3000ms).substr(0, 7), "waiting");
}

TEST(ConnectionLimits, AClientAddressPastItsLimitIsClosedAtOnce) {
  ServerProcess server(R"({"workers": 2, "listeners": [{"name": "web", "address": "127.0.0.1:0", "protocol": "http",
      "limits": {"max_connections_per_ip": 3},
      "routes": [{"method": "GET", "path": "/plaintext", "handler": "text", "body": "Hello, World!"},
                 {"method": "GET", "path": "/metrics", "handler": "metrics"}]}]})");
  const int port = server.port_of("web");
  ASSERT_GT(port, 0);
  // Why two workers: the kernel spreads one client's connections over them,
  // and the limit must hold for the client, not per worker.
  std::vector<UniqueFd> open;
  for (int i = 0; i < 3; ++i) {
    open.push_back(connect_loopback(port));
    ASSERT_EQ(plaintext(open.back().get()), "HTTP/1.1 200 OK") << "connection " << i;
  }
  UniqueFd fourth = connect_loopback(port);
  ASSERT_TRUE(fourth);
  EXPECT_TRUE(closed_unanswered(fourth.get())) << "the 4th connection from 127.0.0.1 was not refused";
  for (const UniqueFd& fd : open) EXPECT_EQ(plaintext(fd.get()), "HTTP/1.1 200 OK");  // the others go on

  // One leaves: the address has room again (once the server has seen it go).
  open.pop_back();
  std::string status = "never tried";
  for (int attempt = 0; attempt < 40 && status != "HTTP/1.1 200 OK"; ++attempt) {
    std::this_thread::sleep_for(25ms);
    UniqueFd again = connect_loopback(port);
    status = plaintext(again.get());
  }
  EXPECT_EQ(status, "HTTP/1.1 200 OK");
  open.pop_back();  // room for the metrics request
  std::this_thread::sleep_for(100ms);
  const auto metrics = parse_prometheus(get(port, "/metrics"));
  EXPECT_GE(metrics.at("tiffany_connections_refused_total"), 1);
  EXPECT_NE(server.err().find("listener \"web\" refused a connection from 127.0.0.1:"), std::string::npos)
      << server.err();
}

}  // namespace
}  // namespace tiffany::testing
