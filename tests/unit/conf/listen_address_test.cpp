// ListenAddress: which "HOST:PORT" strings are accepted and how they print.
#include "conf/listen_address.hpp"

#include <gtest/gtest.h>

namespace tiffany {
namespace {

TEST(ListenAddress, ParsesIpv4WithPort) {
  auto address = ListenAddress::parse("127.0.0.1:7000");
  ASSERT_TRUE(address);
  EXPECT_EQ(address->host, "127.0.0.1");
  EXPECT_EQ(address->port, 7000);
  EXPECT_FALSE(address->ipv6);
  EXPECT_EQ(address->to_string(), "127.0.0.1:7000");
}

TEST(ListenAddress, ParsesBracketedIpv6) {
  auto address = ListenAddress::parse("[::1]:8080");
  ASSERT_TRUE(address);
  EXPECT_EQ(address->host, "::1");
  EXPECT_TRUE(address->ipv6);
  EXPECT_EQ(address->to_string(), "[::1]:8080");
}

TEST(ListenAddress, LocalhostMeansIpv4Loopback) {
  auto address = ListenAddress::parse("localhost:0");
  ASSERT_TRUE(address);
  EXPECT_EQ(address->host, "127.0.0.1");
  EXPECT_EQ(address->port, 0);
}

TEST(ListenAddress, RejectsMalformedAddresses) {
  for (const char* bad : {"", "7000", "127.0.0.1", "127.0.0.1:", "127.0.0.1:65536", "127.0.0.1:-1", "127.0.0.1:70a",
                          "300.0.0.1:80", "::1:80", "[::1:80", "example.com:80", "[127.0.0.1]:80"}) {
    EXPECT_FALSE(ListenAddress::parse(bad)) << bad;
  }
}

}  // namespace
}  // namespace tiffany
