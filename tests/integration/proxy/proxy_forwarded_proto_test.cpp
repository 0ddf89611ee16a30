// The proxy tells its upstream how the client spoke: X-Forwarded-Proto and Forwarded's proto are https when the
// client reached an https listener, http on a plain one (Request::tls, end to end through the real binary).
#include <signal.h>

#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "../server_process.hpp"
#include "../tls_test_client.hpp"
#include "fake_upstream.hpp"
#include "proxy_client.hpp"
#include "support/test_certificate.hpp"

namespace tiffany::testing {
namespace {

constexpr const char* kRequest = "GET /app/who HTTP/1.1\r\nHost: example.test\r\nConnection: close\r\n\r\n";

// An upstream whose answer's body is the request it received, head and all.
bool echo_request(int fd, const std::string& request) { return send_all(fd, FakeUpstream::response(200, request)); }

class ProxyForwardedProto : public ::testing::Test {
 protected:
  void SetUp() override {
    ::signal(SIGPIPE, SIG_IGN);  // the TLS test client writes to sockets the server may close
    certificate_ = write_test_certificate(dir_.path(), "proxy", "localhost", {"localhost"});
    const std::string route = R"([{"path": "/app/*", "handler": "proxy", "with": {"upstream": "app",
        "strip_prefix": "/app"}}])";
    proxy_.emplace(R"({"workers": 1, "upstreams": {"app": {"servers": ["127.0.0.1:)" +
                   std::to_string(upstream_.port()) + R"("]}}, "listeners": [
        {"name": "plain", "address": "127.0.0.1:0", "protocol": "http", "routes": )" + route + R"(},
        {"name": "secure", "address": "127.0.0.1:0", "protocol": "http", "routes": )" + route + R"(,
         "tls": {"cert": ")" + certificate_.cert_file + R"(", "key": ")" + certificate_.key_file + R"("}}]})");
    plain_port_ = proxy_->port_of("plain");
    secure_port_ = proxy_->port_of("secure");
    ASSERT_NE(plain_port_, 0) << proxy_->err();
    ASSERT_NE(secure_port_, 0) << proxy_->err();
  }

  TempDir dir_;
  TestCertificate certificate_;
  FakeUpstream upstream_{echo_request};
  std::optional<ServerProcess> proxy_;
  int plain_port_ = 0;
  int secure_port_ = 0;
};

TEST_F(ProxyForwardedProto, AClientOverTlsIsForwardedAsHttps) {
  TlsTestClient client(secure_port_, certificate_.cert_file);
  ASSERT_TRUE(client.ok()) << client.error();
  ASSERT_TRUE(client.send(kRequest));
  const std::string got = client.receive(1 << 20);
  ASSERT_EQ(status_of(got), 200) << got;
  const std::string seen = body_of(got);
  EXPECT_EQ(seen.rfind("GET /who HTTP/1.1\r\n", 0), 0u) << seen;
  EXPECT_NE(seen.find("\r\nX-Forwarded-Proto: https\r\n"), std::string::npos) << seen;
  EXPECT_NE(seen.find("\r\nForwarded: for=\"127.0.0.1:"), std::string::npos) << seen;
  EXPECT_NE(seen.find(";proto=https;host=example.test\r\n"), std::string::npos) << seen;
  EXPECT_EQ(seen.find("proto=http;"), std::string::npos) << seen;
}

TEST_F(ProxyForwardedProto, APlainClientIsForwardedAsHttp) {
  const std::string got = http_exchange(plain_port_, kRequest);
  ASSERT_EQ(status_of(got), 200) << got;
  const std::string seen = body_of(got);
  EXPECT_NE(seen.find("\r\nX-Forwarded-Proto: http\r\n"), std::string::npos) << seen;
  EXPECT_NE(seen.find(";proto=http;host=example.test\r\n"), std::string::npos) << seen;
  EXPECT_EQ(seen.find("https"), std::string::npos) << seen;
}

TEST_F(ProxyForwardedProto, RequestsAfterATlsOneOnTheSameWorkerKeepTheirOwnScheme) {
  // Both listeners share the worker and its proxy route: each request's
  // scheme is its own connection's, not the last one's.
  for (int round = 0; round < 3; ++round) {
    TlsTestClient client(secure_port_, certificate_.cert_file);
    ASSERT_TRUE(client.ok()) << client.error();
    ASSERT_TRUE(client.send(kRequest));
    EXPECT_NE(body_of(client.receive(1 << 20)).find("X-Forwarded-Proto: https\r\n"), std::string::npos);
    const std::string plain = body_of(http_exchange(plain_port_, kRequest));
    EXPECT_NE(plain.find("X-Forwarded-Proto: http\r\n"), std::string::npos) << plain;
  }
}

}  // namespace
}  // namespace tiffany::testing
