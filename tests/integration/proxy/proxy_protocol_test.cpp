// PROXY protocol listeners through the real binary: spoofed v1/v2 headers, curl, HAProxy in front (v1 and v2, plain
// and TLS, its LOCAL health checks), untrusted, malformed and silent connections closed.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>

#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <thread>

#include "../echo_client.hpp"
#include "../server_process.hpp"
#include "fake_upstream.hpp"
#include "proxy_client.hpp"
#include "support/haproxy_peer.hpp"
#include "support/test_certificate.hpp"

namespace tiffany::testing {
namespace {

using namespace std::chrono_literals;

// An upstream whose answer's body is the request it received, head and all.
bool echo_request(int fd, const std::string& request) { return send_all(fd, FakeUpstream::response(200, request)); }

std::string u16(unsigned value) { return std::string{static_cast<char>(value >> 8), static_cast<char>(value & 0xFF)}; }

std::string tlv(unsigned type, const std::string& value) { return std::string(1, static_cast<char>(type)) + u16(static_cast<unsigned>(value.size())) + value; }

// A v2 PROXY header: TCP over IPv6 from [2001:db8::7]:4242 to [2001:db8::1]:443, with ALPN and authority TLVs.
std::string v2_tcp6_header() {
  const std::string source = std::string("\x20\x01\x0d\xb8", 4) + std::string(11, '\0') + '\x07';
  const std::string destination = std::string("\x20\x01\x0d\xb8", 4) + std::string(11, '\0') + '\x01';
  const std::string body = source + destination + u16(4242) + u16(443) + tlv(0x01, "http/1.1") + tlv(0x02, "example.test");
  return std::string("\r\n\r\n\0\r\nQUIT\n", 12) + '\x21' + '\x21' + u16(static_cast<unsigned>(body.size())) + body;
}

// A v2 LOCAL header (what HAProxy's health checks send).
std::string v2_local_header() { return std::string("\r\n\r\n\0\r\nQUIT\n", 12) + '\x20' + '\x00' + u16(0); }

int local_port(int fd) {
  sockaddr_in address{};
  socklen_t length = sizeof address;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  return ntohs(address.sin_port);
}

// True if the server closes `fd` within `timeout` having sent nothing.
bool closed_without_answer(int fd, std::chrono::milliseconds timeout) {
  pollfd readable{fd, POLLIN, 0};
  if (::poll(&readable, 1, static_cast<int>(timeout.count())) != 1) return false;
  char byte;
  return ::recv(fd, &byte, 1, 0) <= 0;
}

// A TLS client that may write bytes (a PROXY header) on its socket before the ClientHello.
class RawTlsClient {
 public:
  RawTlsClient(int port, const std::string& before_hello) : fd_(connect_loopback(port)) {
    ctx_ = SSL_CTX_new(TLS_client_method());
    ssl_ = SSL_new(ctx_);
    if (!send_all(fd_.get(), before_hello)) return;
    SSL_set_fd(ssl_, fd_.get());
    SSL_set_tlsext_host_name(ssl_, "localhost");
    ok_ = SSL_connect(ssl_) == 1;
  }
  RawTlsClient(const RawTlsClient&) = delete;
  RawTlsClient& operator=(const RawTlsClient&) = delete;
  ~RawTlsClient() {
    SSL_free(ssl_);
    SSL_CTX_free(ctx_);
  }
  bool ok() const { return ok_; }
  int fd() const { return fd_.get(); }
  // Sends `request` and reads the answer until the server closes.
  std::string exchange(const std::string& request) {
    if (SSL_write(ssl_, request.data(), static_cast<int>(request.size())) <= 0) return "<write failed>";
    std::string got;
    char buffer[4096];
    for (;;) {
      const int n = SSL_read(ssl_, buffer, sizeof buffer);
      if (n <= 0) break;
      got.append(buffer, static_cast<std::size_t>(n));
    }
    return got;
  }

 private:
  UniqueFd fd_;
  SSL_CTX* ctx_ = nullptr;
  SSL* ssl_ = nullptr;
  bool ok_ = false;
};

class ProxyProtocol : public ::testing::Test {
 protected:
  void SetUp() override {
    ::signal(SIGPIPE, SIG_IGN);
    certificate_ = write_test_certificate(dir_.path(), "pp", "localhost", {"localhost"});
    access_log_ = dir_.path() + "/access.log";
    const std::string routes = R"([{"path": "/app/*", "handler": "proxy", "with": {"upstream": "app", "strip_prefix": "/app"}},
        {"path": "/hc", "handler": "text", "body": "up"}])";
    const std::string trusted = R"("proxy_protocol": {"trusted": ["127.0.0.1/32", "::1/128"]})";
    server_.emplace(R"({"workers": 1, "access_log": {"path": ")" + access_log_ + R"(", "format": "json"},
        "upstreams": {"app": {"servers": ["127.0.0.1:)" + std::to_string(upstream_.port()) + R"("]}}, "listeners": [
        {"name": "plain", "address": "127.0.0.1:0", "protocol": "http", "routes": )" + routes + ", " + trusted + R"(},
        {"name": "secure", "address": "127.0.0.1:0", "protocol": "http", "routes": )" + routes + ", " + trusted + R"(,
         "tls": {"cert": ")" + certificate_.cert_file + R"(", "key": ")" + certificate_.key_file + R"("}},
        {"name": "elsewhere", "address": "127.0.0.1:0", "protocol": "http", "routes": )" + routes + R"(,
         "proxy_protocol": {"trusted": ["192.0.2.0/24", "2001:db8::/32"]}},
        {"name": "quick", "address": "127.0.0.1:0", "protocol": "http", "routes": )" + routes + ", " + trusted + R"(,
         "timeouts": {"header_ms": 300}},
        {"name": "echo", "address": "127.0.0.1:0", "protocol": "echo", )" + trusted + R"(}]})");
    for (const char* name : {"plain", "secure", "elsewhere", "quick", "echo"}) {
      ports_[name] = server_->port_of(name);
      ASSERT_NE(ports_[name], 0) << server_->err();
    }
  }

  // Waits (the access log is flushed every second; sanitizer builds are slow) up to 10 s until the log holds `text`.
  bool access_log_has(const std::string& text) {
    for (int i = 0; i < 200; ++i) {
      if (read_file(access_log_).find(text) != std::string::npos) return true;
      std::this_thread::sleep_for(50ms);
    }
    return false;
  }

  // The request the upstream saw last.
  std::string upstream_saw() {
    const auto requests = upstream_.requests();
    return requests.empty() ? "" : requests.back();
  }

  TempDir dir_;
  TestCertificate certificate_;
  std::string access_log_;
  FakeUpstream upstream_{echo_request};
  std::optional<ServerProcess> server_;
  std::map<std::string, int> ports_;
};

TEST_F(ProxyProtocol, ASpoofedV1AddressIsThePeerInTheAccessLogAndForwardedHeaders) {
  const std::string got = http_exchange(ports_["plain"], "PROXY TCP4 203.0.113.7 198.51.100.1 4242 80\r\n" +
                                                             get_request("/app/v1-plain"));
  ASSERT_EQ(status_of(got), 200) << got;
  const std::string seen = body_of(got);
  EXPECT_NE(seen.find("\r\nX-Forwarded-For: 203.0.113.7\r\n"), std::string::npos) << seen;
  EXPECT_NE(seen.find("\r\nForwarded: for=\"203.0.113.7:4242\";proto=http;"), std::string::npos) << seen;
  EXPECT_TRUE(access_log_has(R"("peer":"203.0.113.7:4242","method":"GET","path":"/app/v1-plain")"))
      << read_file(access_log_);
}

TEST_F(ProxyProtocol, ASpoofedV2Ipv6AddressWithTlvsIsThePeer) {
  const std::string got = http_exchange(ports_["plain"], v2_tcp6_header() + get_request("/app/v2-plain"));
  ASSERT_EQ(status_of(got), 200) << got;
  const std::string seen = body_of(got);
  EXPECT_NE(seen.find("\r\nX-Forwarded-For: 2001:db8::7\r\n"), std::string::npos) << seen;
  EXPECT_NE(seen.find("\r\nForwarded: for=\"[2001:db8::7]:4242\""), std::string::npos) << seen;
  EXPECT_TRUE(access_log_has(R"("peer":"[2001:db8::7]:4242","method":"GET","path":"/app/v2-plain")"))
      << read_file(access_log_);
}

TEST_F(ProxyProtocol, AHeaderTrickledByteByByteThenKeepAliveRequestsKeepThePeer) {
  UniqueFd fd = connect_loopback(ports_["plain"]);
  const std::string header = "PROXY TCP4 203.0.113.8 198.51.100.1 5555 80\r\n";
  for (char byte : header) {
    ASSERT_TRUE(send_all(fd.get(), std::string(1, byte)));
    std::this_thread::sleep_for(2ms);
  }
  const std::string keep_alive = "GET /app/first HTTP/1.1\r\nHost: t\r\n\r\n";
  ASSERT_TRUE(send_all(fd.get(), keep_alive));
  std::this_thread::sleep_for(100ms);
  ASSERT_TRUE(send_all(fd.get(), get_request("/app/second")));
  const std::string got = http_exchange_rest(fd.get(), 10s);
  EXPECT_EQ(got.find("HTTP/1.1 200"), 0u) << got;
  EXPECT_TRUE(access_log_has(R"("peer":"203.0.113.8:5555","method":"GET","path":"/app/first")")) << read_file(access_log_);
  EXPECT_TRUE(access_log_has(R"("peer":"203.0.113.8:5555","method":"GET","path":"/app/second")")) << read_file(access_log_);
}

TEST_F(ProxyProtocol, V2LocalKeepsTheSocketPeer) {
  UniqueFd fd = connect_loopback(ports_["plain"]);
  const int port = local_port(fd.get());
  ASSERT_TRUE(send_all(fd.get(), v2_local_header() + get_request("/hc")));
  const std::string got = http_exchange_rest(fd.get(), 10s);
  ASSERT_EQ(status_of(got), 200) << got;
  EXPECT_TRUE(access_log_has(R"("peer":"127.0.0.1:)" + std::to_string(port) + R"(","method":"GET","path":"/hc")"))
      << read_file(access_log_);
}

TEST_F(ProxyProtocol, TheHeaderComesBeforeTheTlsHandshake) {
  RawTlsClient client(ports_["secure"], "PROXY TCP4 203.0.113.9 198.51.100.1 6060 443\r\n");
  ASSERT_TRUE(client.ok());
  const std::string got = client.exchange(get_request("/app/v1-tls"));
  ASSERT_EQ(status_of(got), 200) << got;
  const std::string seen = body_of(got);
  EXPECT_NE(seen.find("\r\nForwarded: for=\"203.0.113.9:6060\";proto=https;"), std::string::npos) << seen;
  EXPECT_TRUE(access_log_has(R"("peer":"203.0.113.9:6060","method":"GET","path":"/app/v1-tls")")) << read_file(access_log_);
}

TEST_F(ProxyProtocol, ATlsClientWithoutTheHeaderIsClosed) {
  RawTlsClient client(ports_["secure"], "");
  EXPECT_FALSE(client.ok()) << "the ClientHello was taken for a PROXY header";
}

TEST_F(ProxyProtocol, CurlsHaproxyProtocolOptionWorksOnPlainAndTls) {
  const RunResult plain = run_program(
      "curl", {"-sS", "--haproxy-protocol", "http://127.0.0.1:" + std::to_string(ports_["plain"]) + "/hc"});
  EXPECT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(plain.out, "up");
  const RunResult tls = run_program(
      "curl", {"-sS", "--haproxy-protocol", "--cacert", certificate_.cert_file, "--resolve",
               "localhost:" + std::to_string(ports_["secure"]) + ":127.0.0.1",
               "https://localhost:" + std::to_string(ports_["secure"]) + "/hc?tls"});
  EXPECT_EQ(tls.exit_code, 0) << tls.err;
  EXPECT_EQ(tls.out, "up");
  EXPECT_TRUE(access_log_has(R"("peer":"127.0.0.1:)")) << read_file(access_log_);
  EXPECT_TRUE(access_log_has(R"("path":"/hc","query":"tls","status":200)")) << read_file(access_log_);
  // Without the option, a trusted client's plain request is not a PROXY header: closed.
  const RunResult bare = run_program("curl", {"-sS", "http://127.0.0.1:" + std::to_string(ports_["plain"]) + "/hc"});
  EXPECT_NE(bare.exit_code, 0) << bare.out;
}

TEST_F(ProxyProtocol, AnUntrustedClientIsClosedUnread) {
  UniqueFd fd = connect_loopback(ports_["elsewhere"]);
  send_all(fd.get(), "PROXY TCP4 203.0.113.7 198.51.100.1 4242 80\r\n" + get_request("/hc"));
  EXPECT_TRUE(closed_without_answer(fd.get(), 5s));
  EXPECT_NE(server_->err().find("listener \"elsewhere\" closed a connection from 127.0.0.1:"), std::string::npos)
      << server_->err();
  EXPECT_NE(server_->err().find("not in proxy_protocol.trusted"), std::string::npos) << server_->err();
}

TEST_F(ProxyProtocol, MalformedOrMissingHeadersAreClosedWithTheReasonLogged) {
  {
    UniqueFd fd = connect_loopback(ports_["plain"]);
    send_all(fd.get(), "PROXY TCP4 203.0.113.7 198.51.100.1 4242\r\n" + get_request("/hc"));
    EXPECT_TRUE(closed_without_answer(fd.get(), 5s));
  }
  EXPECT_NE(server_->err().find("malformed PROXY protocol header: v1: TCP4 wants exactly four fields"), std::string::npos)
      << server_->err();
  for (const std::string& bad : {get_request("/hc"), std::string("PROXY TCP4 203.0.113.7 198.51.100.1 4242 080\r\n"),
                                 std::string("\r\n\r\n\0\r\nQUIT\n\x21\x12\x00\x0c", 16) + std::string(12, '\0')}) {
    UniqueFd fd = connect_loopback(ports_["plain"]);
    send_all(fd.get(), bad);
    EXPECT_TRUE(closed_without_answer(fd.get(), 5s)) << bad;
  }
  // The listener still serves good headers.
  EXPECT_EQ(status_of(http_exchange(ports_["plain"], "PROXY UNKNOWN\r\n" + get_request("/hc"))), 200);
}

TEST_F(ProxyProtocol, ASilentOrStalledHeaderTimesOut) {
  for (const std::string& partial : {std::string(), std::string("PROXY TCP4 203.0.113.7 "),
                                     std::string("\r\n\r\n\0\r\nQUIT\n\x21\x11\x00\x0c\xcb\x00", 18)}) {
    UniqueFd fd = connect_loopback(ports_["quick"]);
    const auto start = std::chrono::steady_clock::now();
    if (!partial.empty()) send_all(fd.get(), partial);
    EXPECT_TRUE(closed_without_answer(fd.get(), 5s));
    const auto took = std::chrono::steady_clock::now() - start;
    EXPECT_GE(took, 250ms);
    EXPECT_LT(took, 3s);
  }
}

TEST_F(ProxyProtocol, EchoListenersTakeTheHeaderToo) {
  UniqueFd fd = connect_loopback(ports_["echo"]);
  ASSERT_TRUE(send_all(fd.get(), "PROXY TCP4 203.0.113.7 198.51.100.1 4242 7\r\nping"));
  char buffer[16];
  const ssize_t n = ::recv(fd.get(), buffer, sizeof buffer, 0);
  ASSERT_EQ(n, 4);
  EXPECT_EQ(std::string(buffer, 4), "ping") << "the header is not echoed, what follows it is";
}

// ---- HAProxy in front ----

// Sends `path` through HAProxy from our own socket; returns the answer and our port (what HAProxy's header names).
std::string through(int haproxy_port, const std::string& path, int& client_port) {
  UniqueFd fd = connect_loopback(haproxy_port);
  client_port = local_port(fd.get());
  send_all(fd.get(), get_request(path));
  return http_exchange_rest(fd.get(), 10s);
}

TEST_F(ProxyProtocol, HaproxySendProxyV2AndV1CarryTheClientsAddress) {
  for (const char* option : {"send-proxy-v2", "send-proxy"}) {
    SCOPED_TRACE(option);
    HaproxyPeer haproxy(std::string("  server t 127.0.0.1:") + std::to_string(ports_["plain"]) + " " + option);
    ASSERT_TRUE(haproxy.running()) << haproxy.config();
    int client_port = 0;
    const std::string path = std::string("/app/haproxy-") + option;
    const std::string got = through(haproxy.port(), path, client_port);
    ASSERT_EQ(status_of(got), 200) << got;
    const std::string seen = body_of(got);
    EXPECT_NE(seen.find("\r\nForwarded: for=\"127.0.0.1:" + std::to_string(client_port) + "\""), std::string::npos)
        << seen;
    EXPECT_TRUE(access_log_has(R"("peer":"127.0.0.1:)" + std::to_string(client_port) + R"(","method":"GET","path":")" +
                               path + "\""))
        << read_file(access_log_);
  }
}

TEST_F(ProxyProtocol, HaproxyInTcpModeBeforeATlsListener) {
  HaproxyPeer haproxy("  server t 127.0.0.1:" + std::to_string(ports_["secure"]) + " send-proxy-v2");
  ASSERT_TRUE(haproxy.running()) << haproxy.config();
  RawTlsClient client(haproxy.port(), "");
  ASSERT_TRUE(client.ok());
  const int client_port = local_port(client.fd());
  const std::string got = client.exchange(get_request("/app/haproxy-tls"));
  ASSERT_EQ(status_of(got), 200) << got;
  EXPECT_NE(body_of(got).find("\r\nForwarded: for=\"127.0.0.1:" + std::to_string(client_port) + "\";proto=https;"),
            std::string::npos)
      << body_of(got);
}

TEST_F(ProxyProtocol, HaproxyHealthChecksSendLocalAndAreServed) {
  HaproxyPeer haproxy("  option httpchk\n  http-check send meth GET uri /hc ver HTTP/1.1 hdr Host t\n"
                      "  server t 127.0.0.1:" + std::to_string(ports_["plain"]) + " send-proxy-v2 check inter 100",
                      "http");
  ASSERT_TRUE(haproxy.running()) << haproxy.config();
  // A check's LOCAL header keeps the socket peer: HAProxy's own address.
  EXPECT_TRUE(access_log_has(R"(","method":"GET","path":"/hc","query":"","status":200)")) << read_file(access_log_);
  int client_port = 0;
  const std::string got = through(haproxy.port(), "/app/after-checks", client_port);
  ASSERT_EQ(status_of(got), 200) << got << server_->err();
}

}  // namespace
}  // namespace tiffany::testing
