// The `proxy_protocol` key of a listener and the CIDR blocks of its `trusted` list.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <gtest/gtest.h>

#include <string>

#include "conf/cidr_range.hpp"
#include "conf/config_loader.hpp"
#include "unit/conf/config_error_for.hpp"

namespace tiffany {
namespace {

std::string with_proxy_protocol(const std::string& value) {
  return R"({"listeners": [{"name": "w", "address": "127.0.0.1:1", "protocol": "http", "routes": [], )"
         R"("proxy_protocol": )" + value + "}]}";
}

sockaddr_storage address(const char* text) {
  sockaddr_storage storage{};
  if (inet_pton(AF_INET, text, &reinterpret_cast<sockaddr_in&>(storage).sin_addr) == 1) {
    storage.ss_family = AF_INET;
  } else {
    EXPECT_EQ(inet_pton(AF_INET6, text, &reinterpret_cast<sockaddr_in6&>(storage).sin6_addr), 1) << text;
    storage.ss_family = AF_INET6;
  }
  return storage;
}

TEST(ProxyProtocolConfig, AbsentOrFalseIsOff) {
  EXPECT_FALSE(parse_config(R"({"listeners": [{"name": "e", "address": "127.0.0.1:1", "protocol": "echo"}]})", "t.json")
                   .listeners[0]
                   .proxy_protocol);
  EXPECT_FALSE(parse_config(with_proxy_protocol("false"), "t.json").listeners[0].proxy_protocol);
}

TEST(ProxyProtocolConfig, TrustedBlocksAreRead) {
  const Config config = parse_config(with_proxy_protocol(R"({"trusted": ["127.0.0.1/32", "::1/128", "10.0.0.0/8", "192.0.2.7"]})"), "t.json");
  ASSERT_TRUE(config.listeners[0].proxy_protocol);
  const auto& trusted = config.listeners[0].proxy_protocol->trusted;
  ASSERT_EQ(trusted.size(), 4u);
  EXPECT_EQ(trusted[0].text, "127.0.0.1/32");
  EXPECT_EQ(trusted[0].prefix, 128);
  EXPECT_EQ(trusted[2].prefix, 104);
  EXPECT_EQ(trusted[3].prefix, 128);
}

// The message up to ", got ...": what was expected.
std::string expected_part(const std::string& message) { return message.substr(0, message.find(", got ")); }

TEST(ProxyProtocolConfig, MistakesNameTheFileThePathAndTheExpectation) {
  EXPECT_EQ(expected_part(error_for(with_proxy_protocol("true"))),
            "test.json: $.listeners[0].proxy_protocol: expected false, or an object {\"trusted\": [\"127.0.0.1/32\", "
            "...]} naming the proxies allowed to send a PROXY protocol header");
  EXPECT_EQ(expected_part(error_for(with_proxy_protocol(R"(["127.0.0.1"])"))),
            "test.json: $.listeners[0].proxy_protocol: expected false, or an object {\"trusted\": [\"127.0.0.1/32\", "
            "...]} naming the proxies allowed to send a PROXY protocol header");
  EXPECT_NE(error_for(with_proxy_protocol("{}")).find("$.listeners[0].proxy_protocol.trusted"), std::string::npos);
  EXPECT_NE(error_for(with_proxy_protocol(R"({"trusted": ["::1"], "strict": true})")).find("$.listeners[0].proxy_protocol.strict: unknown key"),
            std::string::npos);
  EXPECT_EQ(expected_part(error_for(with_proxy_protocol(R"({"trusted": []})"))),
            "test.json: $.listeners[0].proxy_protocol.trusted: expected at least one address block (use false to turn "
            "the PROXY protocol off)");
  EXPECT_EQ(expected_part(error_for(with_proxy_protocol(R"({"trusted": "127.0.0.1"})"))),
            "test.json: $.listeners[0].proxy_protocol.trusted: expected an array of address blocks such as "
            "\"10.0.0.0/8\" or \"::1/128\"");
  const std::string block =
      "expected an address block \"IPv4/0-32\" or \"IPv6/0-128\" (or a single address) with no bits set past the "
      "prefix, such as \"10.0.0.0/8\" or \"::1/128\"";
  for (const char* bad : {"10.0.0.1/8", "10.0.0.0/33", "::1/129", "10.0.0.0/", "10.0.0.0/08", "10.0.0.0/-1",
                          "localhost", "10.0.0/8", "", "/8", "::1/64"}) {
    EXPECT_EQ(expected_part(error_for(with_proxy_protocol(std::string(R"({"trusted": ["::1", ")") + bad + "\"]}"))),
              "test.json: $.listeners[0].proxy_protocol.trusted[1]: " + block)
        << bad;
  }
}

TEST(CidrRange, ContainsMatchesByPrefixAcrossFamilies) {
  const CidrRange ten = *CidrRange::parse("10.0.0.0/8");
  EXPECT_TRUE(ten.contains(address("10.255.0.1")));
  EXPECT_FALSE(ten.contains(address("11.0.0.1")));
  EXPECT_TRUE(ten.contains(address("::ffff:10.1.2.3"))) << "an IPv4 client of a [::] listener";
  EXPECT_FALSE(ten.contains(address("::1")));
  const CidrRange odd = *CidrRange::parse("192.0.2.128/25");
  EXPECT_TRUE(odd.contains(address("192.0.2.200")));
  EXPECT_FALSE(odd.contains(address("192.0.2.127")));
  const CidrRange host = *CidrRange::parse("::1/128");
  EXPECT_TRUE(host.contains(address("::1")));
  EXPECT_FALSE(host.contains(address("::2")));
  EXPECT_FALSE(host.contains(address("127.0.0.1")));
  const CidrRange all = *CidrRange::parse("0.0.0.0/0");
  EXPECT_TRUE(all.contains(address("203.0.113.9")));
  EXPECT_FALSE(all.contains(address("2001:db8::1"))) << "0.0.0.0/0 is IPv4 only";
  EXPECT_TRUE(CidrRange::parse("::/0")->contains(address("2001:db8::1")));
  sockaddr_storage unix_peer{};
  unix_peer.ss_family = AF_UNIX;
  EXPECT_FALSE(all.contains(unix_peer));
}

}  // namespace
}  // namespace tiffany
