// The proxy handler in front of a real nginx on loopback (started by the test): sized, sendfile and chunked
// answers byte-exact, a chunked upload stored whole, upstream keep-alive, and 502 once nginx is gone.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <utility>

#include "../server_process.hpp"
#include "proxy_client.hpp"
#include "support/decode_content.hpp"
#include "support/nginx_peer.hpp"

namespace tiffany::testing {
namespace {

// nginx's side: sendfile for static files, gzip (so chunked: the length is
// unknown; gzip_proxied, as the proxy sends Via) under /gz/, WebDAV PUT under /dav/ (it stores a body as a file,
// so the test can compare every byte that arrived), and stub_status.
constexpr const char* kNginxHttp = "  sendfile on;\n  tcp_nopush on;\n";
constexpr const char* kNginxServer =
    "    location /gz/ { gzip on; gzip_min_length 0; gzip_types text/plain; gzip_proxied any; }\n"
    "    location /dav/ { dav_methods PUT; client_max_body_size 64m; }\n"
    "    location = /nginx_status { stub_status; }\n";

// A proxy on one worker: /ng/* goes to upstream "ng" (the nginx) without the prefix.
std::string proxy_config(const NginxPeer& nginx) {
  return R"({"workers": 1, "upstreams": {"ng": {"servers": [")" + nginx.address() +
         R"("]}}, "listeners": [{"name": "px", "address": "127.0.0.1:0", "protocol": "http",
           "limits": {"max_body_bytes": 67108864}, "routes": [
           {"path": "/ng/*", "handler": "proxy", "with": {"upstream": "ng", "strip_prefix": "/ng"}}]}]})";
}

std::string pattern(std::size_t size) {
  std::string bytes(size, '\0');
  for (std::size_t i = 0; i < size; ++i) bytes[i] = static_cast<char>((i * 131 + i / 4093) % 256);
  return bytes;
}

void write_file(const std::string& path, const std::string& bytes) { std::ofstream(path, std::ios::binary) << bytes; }

// The value of the field `name` in a response's head ("" when absent).
std::string field(const std::string& response, const std::string& name) {
  const std::string head = response.substr(0, response.find("\r\n\r\n") + 2);
  const std::size_t at = head.find("\r\n" + name + ": ");
  if (at == std::string::npos) return "";
  const std::size_t from = at + name.size() + 4;
  return head.substr(from, head.find("\r\n", from) - from);
}

// nginx's stub_status counters, read from nginx directly: {accepts, requests}.
std::pair<long, long> nginx_counters(const NginxPeer& nginx) {
  const std::string text = body_of(http_exchange(nginx.port(), get_request("/nginx_status")));
  const std::size_t at = text.find("server accepts handled requests\n");
  if (at == std::string::npos) return {-1, -1};
  char* end = nullptr;
  const long accepts = std::strtol(text.c_str() + at + 32, &end, 10);
  const long handled = std::strtol(end, &end, 10);
  (void)handled;
  const long requests = std::strtol(end, &end, 10);
  return {accepts, requests};
}

class ProxyNginx : public ::testing::Test {
 protected:
  ProxyNginx() : nginx_(kNginxServer, kNginxHttp) {}
  void SetUp() override {
    ASSERT_TRUE(nginx_.running()) << nginx_.log();
    std::filesystem::create_directories(nginx_.root() + "/gz");
    std::filesystem::create_directories(nginx_.root() + "/dav");
    proxy_.emplace(proxy_config(nginx_));
    port_ = proxy_->port_of("px");
    ASSERT_NE(port_, 0);
  }

  NginxPeer nginx_;
  std::optional<ServerProcess> proxy_;
  int port_ = 0;
};

TEST_F(ProxyNginx, ASmallFileArrivesExactWithItsLength) {
  write_file(nginx_.root() + "/small.txt", "hello from nginx\n");
  const std::string got = http_exchange(port_, get_request("/ng/small.txt"));
  ASSERT_EQ(status_of(got), 200) << got;
  EXPECT_EQ(body_of(got), "hello from nginx\n");
  EXPECT_EQ(field(got, "Content-Length"), "17") << got;
  EXPECT_EQ(field(got, "Via"), "1.1 tiffany") << got;
  EXPECT_NE(field(got, "X-Connection"), "") << "nginx's own fields pass through: " << got;
}

TEST_F(ProxyNginx, ASeveralMebibyteFileSentWithSendfileArrivesByteExact) {
  const std::string big = pattern(8 * 1024 * 1024 + 12345);
  write_file(nginx_.root() + "/big.bin", big);
  const std::string got = http_exchange(port_, get_request("/ng/big.bin"), std::chrono::seconds(30));
  ASSERT_EQ(status_of(got), 200) << got.substr(0, 300);
  EXPECT_EQ(field(got, "Content-Length"), std::to_string(big.size())) << "a sized answer stays sized";
  const std::string body = body_of(got);
  ASSERT_EQ(body.size(), big.size());
  EXPECT_TRUE(body == big) << "the body came back changed";
}

TEST_F(ProxyNginx, AChunkedGzipAnswerArrivesIntact) {
  std::string text;
  for (int i = 0; i < 20000; ++i) text += "line " + std::to_string(i) + " of a text nginx compresses\n";
  write_file(nginx_.root() + "/gz/text.txt", text);
  const std::string request = get_request("/gz/text.txt", "Accept-Encoding: gzip\r\n");
  // nginx itself answers chunked: a gzip body's length is not known up front.
  const std::string direct = http_exchange(nginx_.port(), request);
  ASSERT_EQ(field(direct, "Transfer-Encoding"), "chunked") << direct.substr(0, 300);

  const std::string got = http_exchange(port_, get_request("/ng/gz/text.txt", "Accept-Encoding: gzip\r\n"));
  ASSERT_EQ(status_of(got), 200) << got.substr(0, 300);
  EXPECT_EQ(field(got, "Content-Encoding"), "gzip") << got.substr(0, 300);
  ASSERT_EQ(field(got, "Transfer-Encoding"), "chunked") << got.substr(0, 300);
  const std::optional<std::string> gzipped = dechunk(body_of(got));
  ASSERT_TRUE(gzipped) << "the chunked framing is broken";
  const std::optional<std::string> decoded = decode_content("gzip", *gzipped);
  ASSERT_TRUE(decoded) << "not one whole gzip stream (" << gzipped->size() << " bytes)";
  EXPECT_TRUE(*decoded == text) << "the text came back changed (" << decoded->size() << " bytes)";
}

TEST_F(ProxyNginx, AChunkedUploadOfSeveralMebibytesReachesNginxWhole) {
  const std::string upload = pattern(5 * 1024 * 1024 + 777);
  std::string framed;
  std::size_t size = 1000;
  for (std::size_t at = 0; at < upload.size(); at += size, size = size * 3 % 200'000 + 1) {
    const std::string piece = upload.substr(at, size);
    char length[32];
    std::snprintf(length, sizeof length, "%zx\r\n", piece.size());
    framed += length + piece + "\r\n";
  }
  framed += "0\r\n\r\n";
  const std::string head =
      "PUT /ng/dav/upload.bin HTTP/1.1\r\nHost: example.test\r\nConnection: close\r\n"
      "Content-Type: application/octet-stream\r\nTransfer-Encoding: chunked\r\n\r\n";
  const std::string got = http_exchange(port_, head + framed, std::chrono::seconds(30));
  EXPECT_EQ(status_of(got), 201) << got;
  const std::string stored = read_file(nginx_.root() + "/dav/upload.bin");
  ASSERT_EQ(stored.size(), upload.size());
  EXPECT_TRUE(stored == upload) << "the body nginx stored differs from the one sent";
}

TEST_F(ProxyNginx, TwoHundredRequestsReuseAFewUpstreamConnections) {
  write_file(nginx_.root() + "/small.txt", "kept\n");
  const auto [accepts_before, requests_before] = nginx_counters(nginx_);
  ASSERT_GE(accepts_before, 1);
  for (int i = 0; i < 200; ++i) {
    // A new client connection each time (Connection: close): only the
    // proxy's upstream connections can be kept.
    const std::string got = http_exchange(port_, get_request("/ng/small.txt"));
    ASSERT_EQ(status_of(got), 200) << "request " << i << ": " << got;
    ASSERT_EQ(body_of(got), "kept\n");
  }
  const auto [accepts_after, requests_after] = nginx_counters(nginx_);
  // Less the connection that read the counters the second time (and its request).
  const long upstream_connections = accepts_after - accepts_before - 1;
  EXPECT_EQ(requests_after - requests_before - 1, 200) << "every request reached nginx";
  EXPECT_LE(upstream_connections, 2) << "the proxy opened a connection per request or so";
  EXPECT_GE(upstream_connections, 1);
}

TEST_F(ProxyNginx, NginxStoppedMeansBadGateway) {
  write_file(nginx_.root() + "/small.txt", "up\n");
  // One answer first, so the proxy holds an idle connection to nginx when it goes.
  ASSERT_EQ(status_of(http_exchange(port_, get_request("/ng/small.txt"))), 200);
  nginx_.stop();
  const std::string got = http_exchange(port_, get_request("/ng/small.txt"));
  EXPECT_EQ(status_of(got), 502) << got;
  EXPECT_EQ(field(got, "Content-Type"), "text/plain; charset=utf-8") << got;
  EXPECT_EQ(body_of(got).rfind("502 Bad Gateway: ", 0), 0u) << got;
}

}  // namespace
}  // namespace tiffany::testing
