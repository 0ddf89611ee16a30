// tcp_connect over loopback on both reactor backends: IPv4 and IPv6
// listeners, a name from /etc/hosts, a closed port refused at once, the
// whole-connect timeout, and a connecting task canceled mid-way.
#include <tiffany/net/tcp_connect.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include <tiffany/coro/sleep.hpp>
#include <tiffany/coro/syscalls.hpp>
#include <tiffany/coro/task_canceled.hpp>
#include <tiffany/net/resolver.hpp>
#include <tiffany/net/socket_stream.hpp>

#include "support/loopback_socket.hpp"
#include "unit/net/connect_fixture.hpp"

namespace tiffany {
namespace {

using namespace std::chrono_literals;
using testing::LoopbackSocket;

// A listening socket on [::1]:<free port>; invalid fd if the host has no IPv6 loopback.
struct Ipv6Listener {
  UniqueFd fd{::socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0)};
  int port = 0;
  Ipv6Listener() {
    sockaddr_in6 address{};
    address.sin6_family = AF_INET6;
    address.sin6_addr = in6addr_loopback;
    socklen_t length = sizeof address;
    if (!fd || ::bind(fd.get(), reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        ::listen(fd.get(), 16) != 0 || ::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&address), &length) != 0) {
      fd.reset();
      return;
    }
    port = ntohs(address.sin6_port);
  }
};

class TcpConnectTest : public ConnectTest {};

INSTANTIATE_TEST_SUITE_P(Backends, TcpConnectTest, all_backends(), backend_name);

// The stream reaches the listener: its bytes arrive on the accepted socket.
void expect_reaches(ConnectResult& result, int listener) {
  ASSERT_TRUE(result) << result.error().message;
  auto* socket = dynamic_cast<SocketStream*>(result.stream().get());
  ASSERT_NE(socket, nullptr);
  int nodelay = 0;
  socklen_t length = sizeof nodelay;
  ASSERT_EQ(::getsockopt(socket->fd(), IPPROTO_TCP, TCP_NODELAY, &nodelay, &length), 0);
  EXPECT_NE(nodelay, 0) << "TCP_NODELAY is not set";
  UniqueFd accepted(::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC));
  ASSERT_TRUE(accepted.valid());
  ASSERT_EQ(::send(socket->fd(), "ping", 4, 0), 4);
  char buffer[8] = {};
  EXPECT_EQ(::recv(accepted.get(), buffer, sizeof buffer, 0), 4);
  EXPECT_EQ(std::string(buffer), "ping");
}

TEST_P(TcpConnectTest, ConnectsToAnIpv4Listener) {
  LoopbackSocket listener(true);
  ASSERT_TRUE(listener.fd.valid());
  ConnectResult result = connect("127.0.0.1", listener.port());
  expect_reaches(result, listener.fd.get());
  EXPECT_EQ(result.peer().to_string(), "127.0.0.1:" + std::to_string(listener.port()));
}

TEST_P(TcpConnectTest, ConnectsToAnIpv6Listener) {
  Ipv6Listener listener;
  if (!listener.fd) GTEST_SKIP() << "no IPv6 loopback here";
  ConnectResult result = connect("::1", listener.port);
  expect_reaches(result, listener.fd.get());
  EXPECT_EQ(result.peer().to_string(), "[::1]:" + std::to_string(listener.port));
}

TEST_P(TcpConnectTest, ConnectsToANameFromTheHostsFile) {
  LoopbackSocket listener(true);
  ASSERT_TRUE(listener.fd.valid());
  Resolver resolver;  // the system's configuration: /etc/hosts names localhost
  ConnectOptions options;
  options.resolver = &resolver;
  ConnectResult result = connect("localhost", listener.port(), options);
  expect_reaches(result, listener.fd.get());
}

TEST_P(TcpConnectTest, AClosedPortIsRefusedQuickly) {
  int port = 0;
  {
    LoopbackSocket bound(false);  // a free port, closed again: nothing listens there
    ASSERT_TRUE(bound.fd.valid());
    port = bound.port();
  }
  const auto start = std::chrono::steady_clock::now();
  ConnectResult result = connect("127.0.0.1", port);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, ConnectErrorKind::refused) << result.error().message;
  EXPECT_NE(result.error().message.find("127.0.0.1:" + std::to_string(port)), std::string::npos)
      << result.error().message;
  EXPECT_LT(std::chrono::steady_clock::now() - start, 1s);
}

TEST_P(TcpConnectTest, AnUnresolvableNameIsAResolveError) {
  ConnectResult result = connect("bad name", 80);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, ConnectErrorKind::resolve);
  EXPECT_NE(result.error().message.find("\"bad name\""), std::string::npos) << result.error().message;
}

// A listener whose accept queue is full: the kernel drops further SYNs, so a
// connect to it hangs (retransmitting) until given up.
struct FullListener {
  LoopbackSocket listener{false};
  std::vector<UniqueFd> fillers;
  bool ready = false;
  FullListener() {
    if (!listener.fd || ::listen(listener.fd.get(), 0) != 0) return;
    for (int i = 0; i < 4; ++i) {
      UniqueFd filler(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
      (void)::connect(filler.get(), reinterpret_cast<const sockaddr*>(&listener.address), sizeof listener.address);
      fillers.push_back(std::move(filler));
    }
    ready = true;
  }
};

TEST_P(TcpConnectTest, TheWholeConnectHasATimeout) {
  FullListener full;
  ASSERT_TRUE(full.ready);
  ConnectOptions options;
  options.timeout = 200ms;
  const auto start = std::chrono::steady_clock::now();
  ConnectResult result = connect("127.0.0.1", full.listener.port(), options);
  const auto took = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, ConnectErrorKind::timeout) << result.error().message;
  EXPECT_GE(took, 190ms);
  EXPECT_LT(took, 2s);
  EXPECT_FALSE(reactor().has_pending()) << "the canceled connect is still in flight";
}

TEST_P(TcpConnectTest, CancelingAConnectingTaskCancelsTheAttempt) {
  FullListener full;
  ASSERT_TRUE(full.ready);
  bool canceled = false;
  auto run = [](int port, bool& out) -> Task<void> {
    try {
      (void)co_await tcp_connect("127.0.0.1", static_cast<std::uint16_t>(port));
    } catch (const TaskCanceled&) {
      out = true;
      throw;
    }
  };
  auto handle = scheduler().spawn(run(full.listener.port(), canceled));
  auto canceler = [](JoinHandle<void>& target) -> Task<void> {
    co_await Sleep{50ms};
    target.cancel();
  };
  (void)scheduler().spawn(canceler(handle));
  const auto start = std::chrono::steady_clock::now();
  scheduler().run();
  EXPECT_TRUE(canceled);
  EXPECT_EQ(scheduler().state(handle.tid()), TaskState::canceled);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);
  EXPECT_FALSE(reactor().has_pending());
}

}  // namespace
}  // namespace tiffany
