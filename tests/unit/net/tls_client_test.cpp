// tcp_connect's TLS client against an in-process OpenSSL server with a test
// certificate: verified with that CA and echoed over, ALPN agreed, a wrong
// host name and an untrusted CA refused with a tls error saying why.
#include <tiffany/net/tcp_connect.hpp>

#include <openssl/ssl.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <string>

#include <tiffany/net/resolver.hpp>

#include "support/blocking_tls_server.hpp"
#include "unit/net/connect_fixture.hpp"

namespace tiffany {
namespace {

// One connection's session: echoes one message.
void echo_once(SSL* ssl) {
  char buffer[64];
  const int got = SSL_read(ssl, buffer, sizeof buffer);
  if (got > 0) SSL_write(ssl, buffer, got);
}

// The server of these tests: a.test's certificate, ALPN h2 offered, one echo per connection.
struct OneShotTlsServer : testing::BlockingTlsServer {
  explicit OneShotTlsServer(const testing::TestCertificate& certificate)
      : BlockingTlsServer(certificate, echo_once, true) {}
  bool handshake_succeeded() const { return handshakes() > 0; }
};

class TlsClientTest : public ConnectTest {
 protected:
  static void SetUpTestSuite() { certificates_.emplace("tls-client"); }
  static void TearDownTestSuite() { certificates_.reset(); }

  // Writes `text` and reads the echo.
  std::string echo(ByteStream& stream, const std::string& text) {
    std::string answer;
    auto run = [](ByteStream& s, const std::string& out, std::string& in) -> Task<void> {
      const IoResult written = co_await s.write(out.data(), out.size());
      if (!written) co_return;
      char buffer[64];
      const IoResult got = co_await s.read(buffer, sizeof buffer);
      if (got) in.assign(buffer, got.bytes());
    };
    (void)scheduler().spawn(run(stream, text, answer));
    scheduler().run();
    return answer;
  }

  static TlsClientOptions trusting(const testing::TestCertificate& ca) {
    TlsClientOptions tls;
    tls.ca_file = ca.cert_file;
    return tls;
  }

  static inline std::optional<testing::TlsTestCertificates> certificates_;
};

INSTANTIATE_TEST_SUITE_P(Backends, TlsClientTest, all_backends(), backend_name);

TEST_P(TlsClientTest, VerifiesTheServerWithItsCaAndCarriesBytes) {
  OneShotTlsServer server(certificates_->server());
  ConnectOptions options;
  options.tls = trusting(certificates_->server());
  options.tls->server_name = "a.test";
  ConnectResult result = connect("127.0.0.1", server.port(), options);
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(echo(*result.stream(), "hello over tls"), "hello over tls");
  EXPECT_TRUE(result.stream()->alpn().empty());  // none offered
}

TEST_P(TlsClientTest, TheHostNameIsTheNameCheckedByDefault) {
  OneShotTlsServer server(certificates_->server());
  Resolver resolver;  // localhost from /etc/hosts
  ConnectOptions options;
  options.resolver = &resolver;
  options.tls = trusting(certificates_->server());
  ConnectResult result = connect("localhost", server.port(), options);
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(echo(*result.stream(), "by name"), "by name");
}

TEST_P(TlsClientTest, AgreesOnAnAlpnProtocol) {
  OneShotTlsServer server(certificates_->server());
  ConnectOptions options;
  options.tls = trusting(certificates_->server());
  options.tls->server_name = "a.test";
  options.tls->alpn = {"h2", "http/1.1"};
  ConnectResult result = connect("127.0.0.1", server.port(), options);
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result.stream()->alpn(), "h2");
}

TEST_P(TlsClientTest, AWrongHostNameFailsWithATlsErrorSayingSo) {
  OneShotTlsServer server(certificates_->server());
  ConnectOptions options;
  options.tls = trusting(certificates_->server());
  options.tls->server_name = "wrong.test";
  ConnectResult result = connect("127.0.0.1", server.port(), options);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, ConnectErrorKind::tls);
  EXPECT_NE(result.error().message.find("hostname mismatch"), std::string::npos) << result.error().message;
}

TEST_P(TlsClientTest, AnIpAddressNotInTheCertificateFails) {
  OneShotTlsServer server(certificates_->server());
  ConnectOptions options;
  options.tls = trusting(certificates_->server());  // no server_name: 127.0.0.1 is checked as an address
  ConnectResult result = connect("127.0.0.1", server.port(), options);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, ConnectErrorKind::tls);
  EXPECT_NE(result.error().message.find("IP address mismatch"), std::string::npos) << result.error().message;
}

TEST_P(TlsClientTest, AnUntrustedCaFailsWithATlsErrorSayingSo) {
  OneShotTlsServer server(certificates_->server());
  ConnectOptions options;
  options.tls = trusting(certificates_->other());
  options.tls->server_name = "a.test";
  ConnectResult result = connect("127.0.0.1", server.port(), options);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, ConnectErrorKind::tls);
  EXPECT_NE(result.error().message.find("certificate verify failed"), std::string::npos) << result.error().message;
  EXPECT_FALSE(server.handshake_succeeded());
}

TEST_P(TlsClientTest, AMissingCaFileIsATlsErrorNamingIt) {
  OneShotTlsServer server(certificates_->server());
  ConnectOptions options;
  options.tls = TlsClientOptions{};
  options.tls->ca_file = (std::filesystem::temp_directory_path() / "tiffany-missing.crt").string();
  ConnectResult result = connect("127.0.0.1", server.port(), options);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, ConnectErrorKind::tls);
  EXPECT_NE(result.error().message.find("missing.crt"), std::string::npos) << result.error().message;
}

}  // namespace
}  // namespace tiffany
