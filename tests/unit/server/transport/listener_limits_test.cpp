// PeerConnectionLimit and ListenerLimits: counting by client address, and a listener's room on a worker.
#include "server/transport/listener_limits.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <gtest/gtest.h>

#include <atomic>
#include <optional>
#include <thread>
#include <vector>

#include <tiffany/coro/scheduler.hpp>

#include "server/transport/connection_tracker.hpp"

namespace tiffany {
namespace {

sockaddr_storage ipv4(const char* text, std::uint16_t port) {
  sockaddr_storage storage{};
  auto& in = reinterpret_cast<sockaddr_in&>(storage);
  in.sin_family = AF_INET;
  in.sin_port = htons(port);
  inet_pton(AF_INET, text, &in.sin_addr);
  return storage;
}

sockaddr_storage ipv6(const char* text, std::uint16_t port) {
  sockaddr_storage storage{};
  auto& in6 = reinterpret_cast<sockaddr_in6&>(storage);
  in6.sin6_family = AF_INET6;
  in6.sin6_port = htons(port);
  inet_pton(AF_INET6, text, &in6.sin6_addr);
  return storage;
}

TEST(PeerConnectionLimit, AdmitsUpToTheLimitPerAddressWhateverThePort) {
  PeerConnectionLimit limit(2);
  PeerConnectionLimit::Entry* first = limit.admit(ipv4("10.0.0.1", 1000));
  PeerConnectionLimit::Entry* second = limit.admit(ipv4("10.0.0.1", 1001));
  ASSERT_NE(first, nullptr);
  ASSERT_EQ(first, second);  // one count per address
  EXPECT_EQ(limit.admit(ipv4("10.0.0.1", 1002)), nullptr);
  EXPECT_NE(limit.admit(ipv4("10.0.0.2", 1000)), nullptr);  // another address has room of its own
  EXPECT_EQ(limit.addresses(), 2u);
  limit.release(*first);
  PeerConnectionLimit::Entry* again = limit.admit(ipv4("10.0.0.1", 1003));
  ASSERT_NE(again, nullptr);
  limit.release(*again);
  limit.release(*second);
  EXPECT_EQ(limit.addresses(), 1u);  // an address with none open is forgotten
}

TEST(PeerConnectionLimit, CountsAnIpv4ClientOnceWhetherItComesAsIpv4OrMappedIpv6) {
  PeerConnectionLimit limit(1);
  ASSERT_NE(limit.admit(ipv4("192.0.2.7", 1)), nullptr);
  EXPECT_EQ(limit.admit(ipv6("::ffff:192.0.2.7", 2)), nullptr);
  EXPECT_NE(limit.admit(ipv6("2001:db8::7", 3)), nullptr);
}

TEST(PeerConnectionLimit, HoldsExactlyUnderManyThreads) {
  PeerConnectionLimit limit(1000);
  std::vector<std::thread> threads;
  std::atomic<int> admitted{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 500; ++i) {
        if (limit.admit(ipv4("10.1.1.1", static_cast<std::uint16_t>(i))) != nullptr) ++admitted;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(admitted.load(), 1000);
}

TEST(ListenerLimits, SlotsCountAConnectionInAndOutAndWakeTheAcceptLoop) {
  Scheduler scheduler;
  ConnectionTracker tracker(100);
  PeerConnectionLimit per_address(5);
  ListenerLimits limits("web", 2, &per_address);
  bool room = false;
  auto accept_like = [](ListenerLimits& l, bool& got_room) -> Task<void> {
    co_await l.wait_for_room();
    got_room = true;
  };
  {
    const sockaddr_storage peer = ipv4("127.0.0.1", 5000);
    ConnectionTracker::Slot one(tracker, &limits, per_address.admit(peer));
    std::optional<ConnectionTracker::Slot> two;
    two.emplace(tracker, &limits, per_address.admit(peer));
    EXPECT_TRUE(limits.full());
    EXPECT_EQ(tracker.size(), 2u);
    auto waiter = scheduler.spawn(accept_like(limits, room));
    scheduler.run_until_idle();
    EXPECT_FALSE(room);
    two.reset();  // a connection closes
    scheduler.run_until_idle();
    EXPECT_TRUE(room);
    waiter.take_result();
    EXPECT_EQ(limits.size(), 1u);
  }
  EXPECT_EQ(limits.size(), 0u);
  EXPECT_EQ(tracker.size(), 0u);
  EXPECT_EQ(per_address.addresses(), 0u);
}

}  // namespace
}  // namespace tiffany
