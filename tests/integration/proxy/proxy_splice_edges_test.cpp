// The proxy's splice at its edges through the real binary: an upstream that closes early (client connection
// closed, error logged), a client that leaves mid-body (upstream connection closed, the next body clean) or stops
// reading (dropped at the write timeout), and the copy path where splicing must not apply: a TLS client, a TLS
// upstream, a compressed answer.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <thread>

#include "../echo_client.hpp"
#include "../prometheus_text.hpp"
#include "../server_process.hpp"
#include "../tls_test_client.hpp"
#include "fake_upstream.hpp"
#include "proxy_client.hpp"
#include "splice_support.hpp"
#include "support/decode_content.hpp"
#include "support/test_certificate.hpp"

namespace tiffany::testing {
namespace {

using namespace std::chrono_literals;

constexpr std::size_t kMiB = 1 << 20;
constexpr double kReadWithHead = 256 * 1024;  // the most of a body read with its head (see proxy_splice_test.cpp)

std::string head_of(std::size_t length, const std::string& type = "application/octet-stream") {
  return "HTTP/1.1 200 OK\r\nContent-Type: " + type + "\r\nContent-Length: " + std::to_string(length) + "\r\n\r\n";
}

// One worker, /metrics, /app/* proxied to upstream "app" (`upstream_extra` in it), the listener's `listener_extra`.
std::string config(int upstream_port, const std::string& upstream_extra = "", const std::string& listener_extra = "") {
  return R"({"workers": 1, "upstreams": {"app": {"servers": ["127.0.0.1:)" + std::to_string(upstream_port) + "\"]" +
         upstream_extra + R"(}}, "listeners": [{"name": "px", "address": "127.0.0.1:0", "protocol": "http")" +
         listener_extra + R"(, "routes": [
           {"path": "/metrics", "handler": "metrics"},
           {"path": "/app/*", "handler": "proxy", "with": {"upstream": "app", "strip_prefix": "/app"}}]}]})";
}

// Sends all of `bytes` unless the peer goes away; false then, or after 20 s without progress (a proxy that
// neither reads nor closes).
bool send_or_see_cut(int fd, const std::string& bytes) {
  for (std::size_t sent = 0; sent < bytes.size();) {
    pollfd poller{fd, POLLOUT, 0};
    if (::poll(&poller, 1, 20000) != 1) return false;
    const ssize_t n = ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
    if (n <= 0) return false;
    sent += static_cast<std::size_t>(n);
  }
  return true;
}

TEST(ProxySplice, AnUpstreamThatClosesEarlyClosesTheClientConnectionAndTheErrorLogSaysSo) {
  // Promises 4 MiB, sends 1 MiB of it, closes.
  FakeUpstream upstream([](int fd, const std::string&) {
    send_all(fd, head_of(4 * kMiB) + pattern_body(4 * kMiB).substr(0, kMiB));
    return false;
  });
  ServerProcess proxy(config(upstream.port()));
  const int port = proxy.port_of("px");
  const UniqueFd client = connect_loopback(port);
  ASSERT_TRUE(client.valid());
  ASSERT_TRUE(send_all(client.get(), "GET /app/short HTTP/1.1\r\nHost: h\r\n\r\n"));
  const ReadResponse response = read_response(client.get());
  EXPECT_EQ(status_of(response.head), 200) << response.head;
  EXPECT_TRUE(response.closed) << "a cut body was not ended by closing the client's connection";
  EXPECT_EQ(response.body.size(), kMiB) << "the bytes the upstream did send should all arrive";
  EXPECT_TRUE(response.body == pattern_body(4 * kMiB).substr(0, response.body.size()));
  EXPECT_GE(spliced_bytes(port), static_cast<double>(kMiB) - kReadWithHead) << "the cut body was not spliced";
  proxy.send_signal(SIGTERM);
  EXPECT_EQ(proxy.wait_for_exit(10s), 0);
  EXPECT_NE(proxy.err().find("the upstream response was cut"), std::string::npos) << proxy.err();
}

// An upstream's answer of 256 MiB that no client waits for: writing stops when the proxy closes
// the connection, which `cut` counts. False then, as a FakeUpstream answer that ends the connection.
bool send_huge_until_cut(int fd, std::atomic<int>& cut) {
  const std::size_t kHuge = 256 * kMiB;
  const std::string piece = pattern_body(kMiB);
  if (!send_or_see_cut(fd, head_of(kHuge))) return false;
  for (std::size_t sent = 0; sent < kHuge; sent += piece.size()) {
    if (!send_or_see_cut(fd, piece)) {
      ++cut;
      return false;
    }
  }
  return true;
}

TEST(ProxySplice, AClientThatLeavesMidBodyClosesTheUpstreamConnectionAndTheNextBodyIsClean) {
  std::atomic<int> cut{0};
  FakeUpstream upstream([&](int fd, const std::string& request) {
    if (request.rfind("GET /small ", 0) == 0) return send_all(fd, head_of(kMiB) + pattern_body(kMiB));
    return send_huge_until_cut(fd, cut);
  });
  ServerProcess proxy(config(upstream.port()));
  const int port = proxy.port_of("px");
  {
    const UniqueFd client = connect_loopback(port);
    ASSERT_TRUE(client.valid());
    ASSERT_TRUE(send_all(client.get(), "GET /app/huge HTTP/1.1\r\nHost: h\r\n\r\n"));
    std::string got;
    char buffer[65536];
    while (got.size() < 2 * kMiB) {
      const ssize_t n = ::recv(client.get(), buffer, sizeof buffer, 0);
      ASSERT_GT(n, 0) << "closed after " << got.size() << " bytes";
      got.append(buffer, static_cast<std::size_t>(n));
    }
  }  // the client leaves with 254 MiB to go
  for (int i = 0; i < 2000 && cut.load() == 0; ++i) std::this_thread::sleep_for(10ms);
  ASSERT_EQ(cut.load(), 1) << "the upstream connection stayed open after the client left";
  EXPECT_GT(spliced_bytes(port), 0) << "the body was not spliced";
  // A new body through a pipe that may have held the last one's bytes: they must not show.
  const UniqueFd next = connect_loopback(port);
  ASSERT_TRUE(next.valid());
  ASSERT_TRUE(send_all(next.get(), "GET /app/small HTTP/1.1\r\nHost: h\r\n\r\n"));
  const ReadResponse response = read_response(next.get());
  ASSERT_FALSE(response.closed) << response.head;
  EXPECT_TRUE(response.body == pattern_body(kMiB)) << "the next body differs";
  EXPECT_EQ(upstream.accepted(), 2) << "the cut connection was pooled";
}

TEST(ProxySplice, AClientThatStopsReadingIsDroppedAtTheWriteTimeoutAndTheUpstreamConnectionClosed) {
  std::atomic<int> cut{0};
  FakeUpstream upstream([&](int fd, const std::string&) { return send_huge_until_cut(fd, cut); });
  // Why 300 ms: the stall is the client's for good; the limit only decides how soon the proxy gives up.
  ServerProcess proxy(config(upstream.port(), "", R"(, "timeouts": {"write_ms": 300})"));
  const int port = proxy.port_of("px");
  const UniqueFd client = connect_loopback(port);
  ASSERT_TRUE(client.valid());
  ASSERT_TRUE(send_all(client.get(), "GET /app/huge HTTP/1.1\r\nHost: h\r\n\r\n"));
  char buffer[65536];
  ASSERT_GT(::recv(client.get(), buffer, sizeof buffer, 0), 0);  // the head has come; now the client reads nothing
  for (int i = 0; i < 2000 && cut.load() == 0; ++i) std::this_thread::sleep_for(10ms);
  ASSERT_EQ(cut.load(), 1) << "the upstream connection stayed open while the client took nothing";
  // What was in flight drains, then the connection ends: the proxy closed it.
  bool closed = false;
  for (int i = 0; i < 100000 && !closed; ++i) {
    pollfd poller{client.get(), POLLIN, 0};
    if (::poll(&poller, 1, 20000) != 1) break;
    closed = ::recv(client.get(), buffer, sizeof buffer, 0) <= 0;
  }
  EXPECT_TRUE(closed) << "the client connection stayed open after the write timeout";
  const std::map<std::string, double> samples = parse_prometheus(body_of(http_exchange(port, get_request("/metrics"))));
  EXPECT_GE(samples.at("tiffany_timeouts_total{stage=\"write\"}"), 1);
  EXPECT_GT(spliced_bytes(port), 0) << "the body was not spliced";
}

// A sink for the proxy's own upstream: answers GET /small with 1 MiB of text.
bool text_answers(int fd, const std::string&) { return send_all(fd, head_of(kMiB, "text/plain") + pattern_body(kMiB)); }

TEST(ProxySplice, ATlsClientGetsTheBodyCopiedAndAPlainOneSpliced) {
  ::signal(SIGPIPE, SIG_IGN);  // the TLS test client writes to sockets the server may close
  TempDir dir;
  const TestCertificate certificate = write_test_certificate(dir.path(), "proxy", "localhost", {"localhost"});
  FakeUpstream upstream(text_answers);
  ServerProcess proxy(config(upstream.port(), "",
                             R"(, "tls": {"cert": ")" + certificate.cert_file + R"(", "key": ")" +
                                 certificate.key_file + R"("})"));
  const int port = proxy.port_of("px");
  TlsTestClient client(port, certificate.cert_file);
  ASSERT_TRUE(client.ok()) << client.error();
  ASSERT_TRUE(client.send("GET /app/x HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"));
  const std::string got = client.receive(kMiB + 4096, 20s);
  EXPECT_EQ(status_of(got), 200) << got.substr(0, 200);
  EXPECT_TRUE(body_of(got) == pattern_body(kMiB)) << "the body over TLS differs";
  TlsTestClient metrics(port, certificate.cert_file);
  ASSERT_TRUE(metrics.ok()) << metrics.error();
  ASSERT_TRUE(metrics.send("GET /metrics HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"));
  const std::map<std::string, double> samples = parse_prometheus(body_of(metrics.receive(1 << 20)));
  const std::string sample =
      "tiffany_proxy_spliced_bytes_total{upstream=\"app\",server=\"127.0.0.1:" + std::to_string(upstream.port()) + "\"}";
  ASSERT_EQ(samples.count(sample), 1u) << "no " << sample;
  EXPECT_EQ(samples.at(sample), 0) << "bytes were spliced into a TLS connection";
}

TEST(ProxySplice, ATlsUpstreamsBodyIsCopied) {
  ::signal(SIGPIPE, SIG_IGN);
  TempDir dir;
  const TestCertificate certificate = write_test_certificate(dir.path(), "up", "localhost", {"localhost"});
  dir.write("big.bin", pattern_body(kMiB));
  ServerProcess tls_upstream(R"({"workers": 1, "listeners": [{"name": "up", "address": "127.0.0.1:0",
    "protocol": "http", "tls": {"cert": ")" + certificate.cert_file + R"(", "key": ")" + certificate.key_file +
                             R"("}, "routes": [{"path": "/*", "handler": "static", "with": {"root": ")" +
                             dir.path() + R"("}}]}]})");
  ServerProcess proxy(config(tls_upstream.port_of("up"), R"(, "tls": {"verify": false})"));
  const int port = proxy.port_of("px");
  const UniqueFd client = connect_loopback(port);
  ASSERT_TRUE(client.valid());
  ASSERT_TRUE(send_all(client.get(), "GET /app/big.bin HTTP/1.1\r\nHost: h\r\n\r\n"));
  const ReadResponse response = read_response(client.get());
  ASSERT_FALSE(response.closed) << response.head;
  EXPECT_EQ(status_of(response.head), 200) << response.head;
  EXPECT_TRUE(response.body == pattern_body(kMiB)) << "the body from a TLS upstream differs";
  EXPECT_EQ(spliced_bytes(port), 0) << "bytes were spliced from a TLS upstream";
}

TEST(ProxySplice, ACompressedAnswerIsCopiedAndTheSameAnswerUncompressedIsSpliced) {
  FakeUpstream upstream(text_answers);
  ServerProcess proxy(config(upstream.port(), "", R"(, "compress": {"codings": ["gzip"]})"));
  const int port = proxy.port_of("px");
  const std::string gzip = http_exchange(port, get_request("/app/x", "Accept-Encoding: gzip\r\n"), 20s);
  EXPECT_EQ(status_of(gzip), 200) << gzip.substr(0, 300);
  EXPECT_NE(gzip.find("Content-Encoding: gzip\r\n"), std::string::npos) << gzip.substr(0, 300);
  const std::optional<std::string> payload = dechunk(body_of(gzip));
  ASSERT_TRUE(payload.has_value()) << "not chunked as expected";
  const std::optional<std::string> decoded = decode_content("gzip", *payload);
  ASSERT_TRUE(decoded.has_value());
  EXPECT_TRUE(*decoded == pattern_body(kMiB)) << "the compressed body decodes to other bytes";
  EXPECT_EQ(spliced_bytes(port), 0) << "a compressed answer was spliced";
  // The control: the same route and answer, no coding asked for.
  const std::string plain = http_exchange(port, get_request("/app/x"), 20s);
  EXPECT_TRUE(body_of(plain) == pattern_body(kMiB));
  EXPECT_GE(spliced_bytes(port), static_cast<double>(kMiB) - kReadWithHead);
}

}  // namespace
}  // namespace tiffany::testing
