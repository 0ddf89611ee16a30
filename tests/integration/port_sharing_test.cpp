// Two servers on one address: the second is refused unless both listeners say "share_port".
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <set>
#include <string>

#include "echo_client.hpp"
#include "server_process.hpp"
#include "support/loopback_socket.hpp"

namespace tiffany::testing {
namespace {

using namespace std::chrono_literals;

// A loopback port nobody listens on right now (the kernel's pick for port 0).
int free_port() {
  const LoopbackSocket probe(false);
  return probe.fd ? probe.port() : 0;
}

// An HTTP listener "web" on 127.0.0.1:`port` whose /who answers `body`.
std::string site_on(int port, const std::string& body, const std::string& extra_key = "") {
  return R"({"workers": 1, "listeners": [{"name": "web", "address": "127.0.0.1:)" + std::to_string(port) +
         R"(", "protocol": "http",)" + extra_key + R"(
      "routes": [{"method": "GET", "path": "/who", "handler": "text", "body": ")" +
         body + R"("}]}]})";
}

// GET /who on a fresh connection; the body, or "" if no answer came.
std::string who_answers(int port) {
  UniqueFd fd = connect_loopback(port);
  if (!fd) return "";
  const std::string request = "GET /who HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n";
  ::send(fd.get(), request.data(), request.size(), MSG_NOSIGNAL);
  std::string reply;
  char buffer[4096];
  for (;;) {
    pollfd p{fd.get(), POLLIN, 0};
    if (::poll(&p, 1, 5000) <= 0) break;
    const ssize_t n = ::recv(fd.get(), buffer, sizeof buffer, 0);
    if (n <= 0) break;
    reply.append(buffer, static_cast<std::size_t>(n));
  }
  const auto body = reply.find("\r\n\r\n");
  return body == std::string::npos ? "" : reply.substr(body + 4);
}

TEST(PortSharing, ASecondServerOnABoundAddressIsRefusedNamingTheListenerAndAddress) {
  const int port = free_port();
  ASSERT_GT(port, 0);
  ServerProcess first(site_on(port, "first"));
  ASSERT_EQ(first.port_of("web"), port);

  TempDir dir;
  const std::string config = dir.write("second.json", site_on(port, "second"));
  const RunResult second = run_tiffany({"--config", config}, 5s);  // one that starts is killed after 5 s
  EXPECT_EQ(second.exit_code, 1);
  const std::string address = "127.0.0.1:" + std::to_string(port);
  EXPECT_EQ(second.err, "tiffany: config error: " + config +
                            ": $.listeners[0].address: listener \"web\" cannot listen on " + address +
                            ": bind: Address already in use (another socket listens there; servers "
                            "meant to share a port set \"share_port\": true)\n");
  EXPECT_EQ(second.out, "");
  for (int i = 0; i < 20; ++i) EXPECT_EQ(who_answers(port), "first") << "connection " << i;
}

TEST(PortSharing, ServersThatBothSharePortSplitTheConnections) {
  const int port = free_port();
  ASSERT_GT(port, 0);
  ServerProcess first(site_on(port, "first", R"( "share_port": true,)"));
  ASSERT_EQ(first.port_of("web"), port);
  ServerProcess second(site_on(port, "second", R"( "share_port": true,)"));
  ASSERT_EQ(second.port_of("web"), port) << second.err();
  // The kernel spreads connections over both servers' sockets by a hash of
  // the client's address and port; each new connection has a new port.
  std::set<std::string> answered_by;
  for (int i = 0; i < 200 && answered_by.size() < 2; ++i) answered_by.insert(who_answers(port));
  EXPECT_EQ(answered_by, (std::set<std::string>{"first", "second"}));
}

TEST(PortSharing, ARestartRightAfterTheOldServerWasKilledIsNotRefused) {
  const int port = free_port();
  ASSERT_GT(port, 0);
  ServerProcess before(site_on(port, "before"));
  ASSERT_EQ(before.port_of("web"), port);
  // Connection: close makes the server close first, leaving its side of
  // each connection in TIME_WAIT on the listening port.
  for (int i = 0; i < 5; ++i) ASSERT_EQ(who_answers(port), "before");
  // Killed, with io_uring its listening socket outlives it by some milliseconds.
  before.send_signal(SIGKILL);
  before.wait_for_exit(5s);
  ServerProcess after(site_on(port, "after"));
  ASSERT_EQ(after.port_of("web"), port) << after.err();
  EXPECT_EQ(who_answers(port), "after");
}

TEST(PortSharing, PortZeroStillGivesEachServerAPortOfItsOwn) {
  ServerProcess first(site_on(0, "first"));
  ServerProcess second(site_on(0, "second"));
  const int first_port = first.port_of("web");
  const int second_port = second.port_of("web");
  ASSERT_GT(first_port, 0);
  ASSERT_GT(second_port, 0);
  EXPECT_NE(first_port, second_port);
  EXPECT_EQ(who_answers(first_port), "first");
  EXPECT_EQ(who_answers(second_port), "second");
}

}  // namespace
}  // namespace tiffany::testing
