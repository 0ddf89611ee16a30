// SimNetwork: latency, order, windows, FIN and RST, as a non-blocking socket would answer.
#include "sim/sim_network.hpp"

#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <string>

namespace tiffany::sim {
namespace {

using namespace std::chrono_literals;

struct NetworkFixture {
  explicit NetworkFixture(NetworkProfile profile = {}, std::uint64_t seed = 7)
      : random(seed), network(clock, random, profile) {}
  ManualClock clock;
  SeededRandom random;
  SimNetwork network;

  // Moves time past every segment now on its way.
  void settle() {
    while (const auto next = network.next_arrival()) clock.set(*next);
  }
  std::string read_all(int fd) {
    std::string got;
    char buffer[4096];
    for (long n; (n = network.recv(fd, buffer, sizeof buffer, 0)) > 0;) got.append(buffer, static_cast<std::size_t>(n));
    return got;
  }
};

TEST(SimNetworkTest, BytesArriveAfterTheLatencyAndInOrder) {
  NetworkFixture net(
      NetworkProfile{.min_latency = 1ms, .max_latency = 5ms, .max_segment = 3, .short_write_per_million = 0});
  const auto [a, b] = net.network.socket_pair();
  ASSERT_EQ(net.network.send(a, "hello, world", 12), 12);
  char buffer[16];
  EXPECT_EQ(net.network.recv(b, buffer, sizeof buffer, 0), -EAGAIN);  // nothing has arrived yet
  EXPECT_EQ(net.network.readiness(b) & POLLIN, 0u);
  net.clock.advance(999us);
  EXPECT_EQ(net.network.recv(b, buffer, sizeof buffer, 0), -EAGAIN);  // before the least latency
  net.settle();
  EXPECT_NE(net.network.readiness(b) & POLLIN, 0u);
  EXPECT_EQ(net.read_all(b), "hello, world");
}

TEST(SimNetworkTest, APeekLeavesTheBytesToBeRead) {
  NetworkFixture net;
  const auto [a, b] = net.network.socket_pair();
  ASSERT_EQ(net.network.send(a, "abc", 3), 3);
  net.settle();
  char buffer[8];
  ASSERT_EQ(net.network.recv(b, buffer, 1, MSG_PEEK), 1);
  EXPECT_EQ(buffer[0], 'a');
  EXPECT_EQ(net.read_all(b), "abc");
}

TEST(SimNetworkTest, AFullWindowStallsTheSenderUntilThePeerReads) {
  NetworkFixture net(NetworkProfile{.short_write_per_million = 0, .window = 100});
  const auto [a, b] = net.network.socket_pair();
  const std::string bytes(150, 'x');
  EXPECT_EQ(net.network.send(a, bytes.data(), bytes.size()), 100);
  EXPECT_EQ(net.network.send(a, bytes.data(), bytes.size()), -EAGAIN);
  EXPECT_EQ(net.network.readiness(a) & POLLOUT, 0u);
  net.settle();
  char buffer[40];
  ASSERT_EQ(net.network.recv(b, buffer, sizeof buffer, 0), 40);
  EXPECT_NE(net.network.readiness(a) & POLLOUT, 0u);
  EXPECT_EQ(net.network.send(a, bytes.data(), bytes.size()), 40);
}

TEST(SimNetworkTest, AFinEndsTheStreamAfterTheBytesBeforeIt) {
  NetworkFixture net;
  const auto [a, b] = net.network.socket_pair();
  ASSERT_EQ(net.network.send(a, "last words", 10), 10);
  ASSERT_EQ(net.network.shutdown_write(a), 0);
  EXPECT_EQ(net.network.send(a, "x", 1), -EPIPE);
  net.settle();
  EXPECT_NE(net.network.readiness(b) & POLLRDHUP, 0u);
  EXPECT_EQ(net.read_all(b), "last words");
  char buffer[4];
  EXPECT_EQ(net.network.recv(b, buffer, sizeof buffer, 0), 0);
  EXPECT_EQ(net.network.recv(b, buffer, sizeof buffer, 0), 0);  // and stays ended
}

TEST(SimNetworkTest, ClosingWithUnreadInputResetsThePeer) {
  NetworkFixture net;
  const auto [a, b] = net.network.socket_pair();
  ASSERT_EQ(net.network.send(a, "ignored", 7), 7);
  net.settle();
  ASSERT_EQ(net.network.close(b), 0);  // b never read it
  net.settle();
  char buffer[8];
  EXPECT_NE(net.network.readiness(a) & POLLERR, 0u);
  EXPECT_EQ(net.network.recv(a, buffer, sizeof buffer, 0), -ECONNRESET);
  EXPECT_EQ(net.network.send(a, "x", 1), -EPIPE);
  EXPECT_EQ(net.network.recv(b, buffer, sizeof buffer, 0), -EBADF);  // the number is dead
  EXPECT_EQ(net.network.open_sockets(), 1u);
}

TEST(SimNetworkTest, BytesSentToAClosedSocketComeBackAsAReset) {
  NetworkFixture net;
  const auto [a, b] = net.network.socket_pair();
  ASSERT_EQ(net.network.close(b), 0);
  EXPECT_EQ(net.network.send(a, "hello", 5), 5);  // the first send cannot know yet
  net.settle();
  char buffer[8];
  // The FIN of b's close came first: a reads the end of the stream, then learns of the reset.
  EXPECT_EQ(net.network.recv(a, buffer, sizeof buffer, 0), -ECONNRESET);
  EXPECT_EQ(net.network.send(a, "again", 5), -EPIPE);
  EXPECT_EQ(net.network.close(a), 0);
  EXPECT_EQ(net.network.open_sockets(), 0u);
}

TEST(SimNetworkTest, OneSeedCutsTheBytesTheSameWay) {
  const auto cuts = [](std::uint64_t seed) {
    NetworkFixture net(NetworkProfile{.max_segment = 100}, seed);
    const auto [a, b] = net.network.socket_pair();
    const std::string bytes(5000, 'y');
    std::vector<long> reads;
    for (std::size_t sent = 0; sent < bytes.size();) {
      const long n = net.network.send(a, bytes.data() + sent, bytes.size() - sent);
      if (n > 0) sent += static_cast<std::size_t>(n);
      while (const auto next = net.network.next_arrival()) {
        net.clock.set(*next);
        char buffer[8192];
        const long got = net.network.recv(b, buffer, sizeof buffer, 0);
        if (got > 0) reads.push_back(got);
      }
    }
    return reads;
  };
  EXPECT_EQ(cuts(5), cuts(5));
  EXPECT_NE(cuts(5), cuts(6));
}

}  // namespace
}  // namespace tiffany::sim
