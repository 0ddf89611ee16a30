// tcp_connect's TLS client against an in-process OpenSSL server with a test
// certificate: verified with that CA and echoed over, ALPN agreed, a wrong
// host name and an untrusted CA refused with a tls error saying why.
#include <tiffany/net/tcp_connect.hpp>

#include <netinet/in.h>
#include <sys/socket.h>

#include <csignal>

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>

#include <tiffany/net/resolver.hpp>

#include "support/loopback_socket.hpp"
#include "support/test_certificate.hpp"
#include "unit/net/connect_fixture.hpp"

namespace tiffany {
namespace {

using testing::LoopbackSocket;

// Picks "h2" when the client offers it, else no protocol.
int select_h2(SSL*, const unsigned char** out, unsigned char* out_length, const unsigned char* offered,
              unsigned int offered_length, void*) {
  static const unsigned char h2[] = {2, 'h', '2'};
  unsigned char* chosen = nullptr;
  if (SSL_select_next_proto(&chosen, out_length, h2, sizeof h2, offered, offered_length) != OPENSSL_NPN_NEGOTIATED) {
    return SSL_TLSEXT_ERR_NOACK;
  }
  *out = chosen;
  return SSL_TLSEXT_ERR_OK;
}

// Accepts one connection on its own thread with blocking OpenSSL, and
// echoes one message if the handshake succeeds.
class OneShotTlsServer {
 public:
  OneShotTlsServer(const testing::TestCertificate& certificate) : context_(SSL_CTX_new(TLS_server_method())) {
    SSL_CTX_use_certificate_chain_file(context_, certificate.cert_file.c_str());
    SSL_CTX_use_PrivateKey_file(context_, certificate.key_file.c_str(), SSL_FILETYPE_PEM);
    SSL_CTX_set_alpn_select_cb(context_, &select_h2, nullptr);
    thread_ = std::thread([this] { serve(); });
  }
  ~OneShotTlsServer() {
    ::shutdown(listener_.fd.get(), SHUT_RDWR);  // unblocks accept if nobody came
    thread_.join();
    SSL_CTX_free(context_);
  }
  int port() const { return listener_.port(); }
  bool handshake_succeeded() const { return established_; }

 private:
  void serve() {
    UniqueFd client(::accept4(listener_.fd.get(), nullptr, nullptr, SOCK_CLOEXEC));
    if (!client) return;
    SSL* ssl = SSL_new(context_);
    SSL_set_fd(ssl, client.get());
    if (SSL_accept(ssl) == 1) {
      established_ = true;
      char buffer[64];
      const int got = SSL_read(ssl, buffer, sizeof buffer);
      if (got > 0) SSL_write(ssl, buffer, got);
      SSL_shutdown(ssl);
    }
    SSL_free(ssl);
    ERR_clear_error();
  }

  LoopbackSocket listener_{true};
  SSL_CTX* context_;
  std::thread thread_;
  std::atomic<bool> established_{false};  // read by the test while the thread may run
};

class TlsClientTest : public ConnectTest {
 protected:
  static void SetUpTestSuite() {
    // Why: the blocking test server may still write (TLS 1.3 session tickets)
    // to a client that has gone; a send must fail, not kill the test.
    ::signal(SIGPIPE, SIG_IGN);
    directory_ = std::filesystem::temp_directory_path() / ("tiffany-tls-client-" + std::to_string(::getpid()));
    std::filesystem::create_directories(directory_);
    server_certificate_ = testing::write_test_certificate(directory_, "server", "a.test", {"a.test", "localhost"});
    other_certificate_ = testing::write_test_certificate(directory_, "other", "b.test", {"b.test"});
  }
  static void TearDownTestSuite() { std::filesystem::remove_all(directory_); }

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

  static inline std::filesystem::path directory_;
  static inline testing::TestCertificate server_certificate_;
  static inline testing::TestCertificate other_certificate_;
};

INSTANTIATE_TEST_SUITE_P(Backends, TlsClientTest, all_backends(), backend_name);

TEST_P(TlsClientTest, VerifiesTheServerWithItsCaAndCarriesBytes) {
  OneShotTlsServer server(server_certificate_);
  ConnectOptions options;
  options.tls = trusting(server_certificate_);
  options.tls->server_name = "a.test";
  ConnectResult result = connect("127.0.0.1", server.port(), options);
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(echo(*result.stream(), "hello over tls"), "hello over tls");
  EXPECT_TRUE(result.stream()->alpn().empty());  // none offered
}

TEST_P(TlsClientTest, TheHostNameIsTheNameCheckedByDefault) {
  OneShotTlsServer server(server_certificate_);
  Resolver resolver;  // localhost from /etc/hosts
  ConnectOptions options;
  options.resolver = &resolver;
  options.tls = trusting(server_certificate_);
  ConnectResult result = connect("localhost", server.port(), options);
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(echo(*result.stream(), "by name"), "by name");
}

TEST_P(TlsClientTest, AgreesOnAnAlpnProtocol) {
  OneShotTlsServer server(server_certificate_);
  ConnectOptions options;
  options.tls = trusting(server_certificate_);
  options.tls->server_name = "a.test";
  options.tls->alpn = {"h2", "http/1.1"};
  ConnectResult result = connect("127.0.0.1", server.port(), options);
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result.stream()->alpn(), "h2");
}

TEST_P(TlsClientTest, AWrongHostNameFailsWithATlsErrorSayingSo) {
  OneShotTlsServer server(server_certificate_);
  ConnectOptions options;
  options.tls = trusting(server_certificate_);
  options.tls->server_name = "wrong.test";
  ConnectResult result = connect("127.0.0.1", server.port(), options);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, ConnectErrorKind::tls);
  EXPECT_NE(result.error().message.find("hostname mismatch"), std::string::npos) << result.error().message;
}

TEST_P(TlsClientTest, AnIpAddressNotInTheCertificateFails) {
  OneShotTlsServer server(server_certificate_);
  ConnectOptions options;
  options.tls = trusting(server_certificate_);  // no server_name: 127.0.0.1 is checked as an address
  ConnectResult result = connect("127.0.0.1", server.port(), options);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, ConnectErrorKind::tls);
  EXPECT_NE(result.error().message.find("IP address mismatch"), std::string::npos) << result.error().message;
}

TEST_P(TlsClientTest, AnUntrustedCaFailsWithATlsErrorSayingSo) {
  OneShotTlsServer server(server_certificate_);
  ConnectOptions options;
  options.tls = trusting(other_certificate_);
  options.tls->server_name = "a.test";
  ConnectResult result = connect("127.0.0.1", server.port(), options);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, ConnectErrorKind::tls);
  EXPECT_NE(result.error().message.find("certificate verify failed"), std::string::npos) << result.error().message;
  EXPECT_FALSE(server.handshake_succeeded());
}

TEST_P(TlsClientTest, AMissingCaFileIsATlsErrorNamingIt) {
  OneShotTlsServer server(server_certificate_);
  ConnectOptions options;
  options.tls = TlsClientOptions{};
  options.tls->ca_file = (directory_ / "missing.crt").string();
  ConnectResult result = connect("127.0.0.1", server.port(), options);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, ConnectErrorKind::tls);
  EXPECT_NE(result.error().message.find("missing.crt"), std::string::npos) << result.error().message;
}

}  // namespace
}  // namespace tiffany
