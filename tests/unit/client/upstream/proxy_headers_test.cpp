// Proxy header rewriting: hop-by-hop removal, Via, X-Forwarded-*, Forwarded (RFC 7239), Host and path rewriting.
#include "client/upstream/proxy_headers.hpp"

#include <gtest/gtest.h>

#include <string>

namespace tiffany::upstream {
namespace {

std::string all(const http::Headers& headers) {
  std::string out;
  for (const auto& field : headers) out += field.name + ": " + field.value + "\n";
  return out;
}

TEST(ProxyHeaders, RemovesHopByHopFieldsAndEveryFieldConnectionNames) {
  http::Headers h;
  h.add("Host", "example.com");
  h.add("connection", "keep-alive, X-Secret");
  h.add("Connection", " , close ,,x-other\t");
  h.add("x-secret", "s");
  h.add("X-Other", "o");
  h.add("Keep-Alive", "timeout=5");
  h.add("Proxy-Connection", "keep-alive");
  h.add("TE", "trailers");
  h.add("Transfer-Encoding", "chunked");
  h.add("Upgrade", "websocket");
  h.add("Proxy-Authorization", "Basic x");
  h.add("Proxy-Authenticate", "Basic");
  h.add("Trailer", "X-Sum");
  h.add("Accept", "*/*");
  remove_hop_by_hop(h);
  EXPECT_EQ(all(h), "Host: example.com\nAccept: */*\n");
}

TEST(ProxyHeaders, HopByHopTellsFixedAndNamedFieldsAndOutlivesTheMessage) {
  http::Headers h;
  h.add("Connection", "keep-alive, X-Named");
  HopByHop hop_by_hop(h);
  h.clear();  // it holds copies of the names
  h.add("Accept", "*/*");
  for (const char* name : {"x-named", "X-NAMED", "te", "Trailer", "keep-alive", "PROXY-AUTHORIZATION"}) {
    EXPECT_TRUE(hop_by_hop(name)) << name;
  }
  for (const char* name : {"Host", "Accept", "X-Named-Too", "T", "Upgrade-Insecure-Requests"}) {
    EXPECT_FALSE(hop_by_hop(name)) << name;
  }
}

TEST(ProxyHeaders, ForwardingFieldsAreTheFourWhoForwardedFields) {
  for (const char* name : {"Forwarded", "x-forwarded-for", "X-Forwarded-Proto", "X-FORWARDED-HOST"}) {
    EXPECT_TRUE(is_forwarding_field(name)) << name;
  }
  for (const char* name : {"X-Forwarded", "X-Forwarded-Port", "Via", "Forwarded-For"}) {
    EXPECT_FALSE(is_forwarding_field(name)) << name;
  }
}

TEST(ProxyHeaders, AddingForwardingFieldsToARequestWithoutThemAppendsThisHop) {
  http::Headers h;
  h.add("Accept", "*/*");
  add_forwarding_headers(h, "example.com", ClientInfo{"2001:db8::1", 5000, true, 1, 0}, ProxyHeaderOptions{});
  EXPECT_EQ(all(h),
            "Accept: */*\nVia: 1.0 tiffany\nX-Forwarded-For: 2001:db8::1\nX-Forwarded-Proto: https\n"
            "X-Forwarded-Host: example.com\nForwarded: for=\"[2001:db8::1]:5000\";proto=https;host=example.com\n");
}

TEST(ProxyHeaders, ConnectionCannotStripHost) {
  http::Headers h;
  h.add("Host", "example.com");
  h.add("Connection", "Host, close");
  remove_hop_by_hop(h);
  EXPECT_EQ(all(h), "Host: example.com\n");
}

TEST(ProxyHeaders, RequestByDefaultReplacesForwardedFieldsTheClientSent) {
  http::Headers h;
  h.add("Host", "example.com");
  h.add("X-Forwarded-For", "6.6.6.6");
  h.add("X-Forwarded-Proto", "https");
  h.add("X-Forwarded-Host", "evil");
  h.add("Forwarded", "for=6.6.6.6");
  h.add("Connection", "close");
  rewrite_request_headers(h, ClientInfo{"192.0.2.7", 41000, false, 1, 1}, ProxyHeaderOptions{});
  EXPECT_EQ(h.get("X-Forwarded-For"), "192.0.2.7");
  EXPECT_EQ(h.get("X-Forwarded-Proto"), "http");
  EXPECT_EQ(h.get("X-Forwarded-Host"), "example.com");
  EXPECT_EQ(h.get("Forwarded"), "for=\"192.0.2.7:41000\";proto=http;host=example.com");
  EXPECT_EQ(h.get("Via"), "1.1 tiffany");
  EXPECT_EQ(h.get("Host"), "example.com");
  EXPECT_FALSE(h.contains("Connection"));
}

TEST(ProxyHeaders, TrustedForwardedFieldsAreKeptAndThisHopAppended) {
  http::Headers h;
  h.add("Host", "example.com:8443");
  h.add("X-Forwarded-For", "203.0.113.1");
  h.add("x-forwarded-for", "198.51.100.2");
  h.add("X-Forwarded-Proto", "https");
  h.add("Forwarded", "for=203.0.113.1;proto=https");
  h.add("Via", "1.0 edge");
  ProxyHeaderOptions options;
  options.trust_forwarded = true;
  rewrite_request_headers(h, ClientInfo{"2001:db8::1", 1234, true, 1, 0}, options);
  EXPECT_EQ(h.get("X-Forwarded-For"), "203.0.113.1, 198.51.100.2, 2001:db8::1");
  EXPECT_EQ(h.get("X-Forwarded-Proto"), "https");
  EXPECT_EQ(h.get("X-Forwarded-Host"), "example.com:8443");
  EXPECT_EQ(h.get("Forwarded"),
            "for=203.0.113.1;proto=https, for=\"[2001:db8::1]:1234\";proto=https;host=\"example.com:8443\"");
  ASSERT_EQ(h.get_all("Via").size(), 2u);
  EXPECT_EQ(h.get_all("Via")[1], "1.0 tiffany");
}

TEST(ProxyHeaders, HostCanBeSetToTheUpstreams) {
  http::Headers h;
  h.add("Host", "example.com");
  ProxyHeaderOptions options;
  options.upstream_host = "app.internal:8080";
  rewrite_request_headers(h, ClientInfo{}, options);
  EXPECT_EQ(h.get("Host"), "app.internal:8080");
  EXPECT_EQ(h.get("X-Forwarded-Host"), "example.com");
  EXPECT_EQ(h.get("X-Forwarded-For"), "unknown");
  EXPECT_EQ(h.get("Forwarded"), "for=unknown;proto=http;host=example.com");
}

TEST(ProxyHeaders, ResponseLosesHopByHopAndGainsVia) {
  http::Headers h;
  h.add("Connection", "keep-alive, X-Internal");
  h.add("X-Internal", "1");
  h.add("Keep-Alive", "timeout=5");
  h.add("Transfer-Encoding", "chunked");
  h.add("Content-Type", "text/plain");
  rewrite_response_headers(h, 2, 0, ProxyHeaderOptions{});
  EXPECT_EQ(all(h), "Content-Type: text/plain\nVia: 2 tiffany\n");
}

TEST(ProxyHeaders, ForwardedNodesAndValues) {
  EXPECT_EQ(forwarded_node("192.0.2.1", 0), "192.0.2.1");
  EXPECT_EQ(forwarded_node("192.0.2.1", 80), "\"192.0.2.1:80\"");
  EXPECT_EQ(forwarded_node("2001:db8::1", 0), "\"[2001:db8::1]\"");
  EXPECT_EQ(forwarded_node("2001:db8::1", 1234), "\"[2001:db8::1]:1234\"");
  EXPECT_EQ(forwarded_node("", 1234), "unknown");
  EXPECT_EQ(forwarded_value("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(via_protocol(1, 0), "1.0");
  EXPECT_EQ(via_protocol(1, 1), "1.1");
}

TEST(ProxyHeaders, RewritePathStripsAPrefixAtASegmentBoundaryAndKeepsTheQuery) {
  EXPECT_EQ(rewrite_path("/app/x", "/app", ""), "/x");
  EXPECT_EQ(rewrite_path("/app/x?a=1&b", "/app/", ""), "/x?a=1&b");
  EXPECT_EQ(rewrite_path("/app", "/app", ""), "/");
  EXPECT_EQ(rewrite_path("/app?q", "/app", ""), "/?q");
  EXPECT_EQ(rewrite_path("/app/", "/app", ""), "/");
  EXPECT_EQ(rewrite_path("/apple", "/app", ""), "/apple");
  EXPECT_EQ(rewrite_path("/other/x", "/app", "/v2"), "/other/x");
  EXPECT_EQ(rewrite_path("/app/x?q", "/app", "/v2/"), "/v2/x?q");
  EXPECT_EQ(rewrite_path("/app", "/app", "/v2"), "/v2");
  EXPECT_EQ(rewrite_path("/x", "/", "/base"), "/base/x");
}

}  // namespace
}  // namespace tiffany::upstream
