// parse_origin_url: schemes, default and explicit ports, IPv6 literals, targets, and what it refuses.
#include "client/internal/origin_url.hpp"

#include <gtest/gtest.h>

namespace tiffany::detail {
namespace {

OriginUrl parsed(const std::string& url) {
  std::string error;
  std::optional<OriginUrl> out = parse_origin_url(url, error);
  EXPECT_TRUE(out) << url << ": " << error;
  return out.value_or(OriginUrl{});
}

TEST(OriginUrl, HttpDefaultsToPort80AndRoot) {
  const OriginUrl url = parsed("http://example.test");
  EXPECT_FALSE(url.tls);
  EXPECT_EQ(url.host, "example.test");
  EXPECT_EQ(url.port, 80);
  EXPECT_EQ(url.host_header, "example.test");
  EXPECT_EQ(url.target, "/");
}

TEST(OriginUrl, HttpsWithPortPathAndQuery) {
  const OriginUrl url = parsed("https://api.test:8443/v1/items?limit=5#frag");
  EXPECT_TRUE(url.tls);
  EXPECT_EQ(url.port, 8443);
  EXPECT_EQ(url.host_header, "api.test:8443");
  EXPECT_EQ(url.target, "/v1/items?limit=5");
}

TEST(OriginUrl, AQueryWithoutAPathGetsTheRoot) { EXPECT_EQ(parsed("http://h?x=1").target, "/?x=1"); }

TEST(OriginUrl, Ipv6LiteralsLoseTheirBracketsForConnecting) {
  const OriginUrl url = parsed("http://[::1]:8080/x");
  EXPECT_EQ(url.host, "::1");
  EXPECT_EQ(url.port, 8080);
  EXPECT_EQ(url.host_header, "[::1]:8080");
}

TEST(OriginUrl, TheSameHostAndPortShareAnOrigin) {
  EXPECT_EQ(parsed("http://h/a").origin_key, parsed("http://h:80/b").origin_key);
  EXPECT_NE(parsed("http://h/").origin_key, parsed("https://h/").origin_key);
  EXPECT_NE(parsed("http://h/").origin_key, parsed("http://h:81/").origin_key);
}

TEST(OriginUrl, RefusesWhatItCannotSendSafely) {
  for (const char* bad :
       {"ftp://h/", "h/", "http://", "http://:80/", "http://u@h/", "http://h:0/", "http://h:70000/", "http://h:x/",
        "http://h:/", "http://[::1/", "http://[::1]x/", "http://h/a b", "http://h/\r\n", "http://h\r\nX: y/"}) {
    std::string error;
    EXPECT_FALSE(parse_origin_url(bad, error)) << bad;
    EXPECT_FALSE(error.empty()) << bad;
  }
}

}  // namespace
}  // namespace tiffany::detail
