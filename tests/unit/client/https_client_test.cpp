// HttpClient over https:// against an in-process TLS server with a test
// certificate: verified with its CA, keep-alive reuse over TLS (session
// tickets on the idle connection do not make it look dead), and an
// untrusted certificate refused as a tls error.
#include <tiffany/client/http_client.hpp>

#include <openssl/ssl.h>

#include <gtest/gtest.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "support/blocking_tls_server.hpp"
#include "unit/reactor/reactor_fixture.hpp"

namespace tiffany {
namespace {

using Result = ClientResult<ClientResponse>;

// One connection's session: answers every request "ok <n>" (n counts the
// connection's requests) until the client closes.
void answer_ok_n(SSL* ssl) {
  std::string buffer;
  char data[4096];
  for (int n = 1;; ++n) {
    while (buffer.find("\r\n\r\n") == std::string::npos) {
      const int got = SSL_read(ssl, data, sizeof data);
      if (got <= 0) return;
      buffer.append(data, static_cast<std::size_t>(got));
    }
    buffer.erase(0, buffer.find("\r\n\r\n") + 4);
    const std::string body = "ok " + std::to_string(n);
    const std::string reply = "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
    if (SSL_write(ssl, reply.data(), static_cast<int>(reply.size())) <= 0) return;
  }
}

// The upstream of these tests: HTTP/1.1 over TLS, keep-alive.
struct TlsUpstream : testing::BlockingTlsServer {
  explicit TlsUpstream(const testing::TestCertificate& certificate) : BlockingTlsServer(certificate, answer_ok_n) {}
};

class HttpsClientTest : public ReactorTest {
 protected:
  static void SetUpTestSuite() { certificates_.emplace("https-client"); }
  static void TearDownTestSuite() { certificates_.reset(); }

  static inline std::optional<testing::TlsTestCertificates> certificates_;
};

INSTANTIATE_TEST_SUITE_P(Backends, HttpsClientTest, all_backends(), backend_name);

TEST_P(HttpsClientTest, VerifiedRequestsReuseOneTlsConnection) {
  TlsUpstream upstream(certificates_->server());
  std::vector<std::string> bodies;
  run([&]() -> Task<void> {
    HttpClientOptions options;
    options.tls.ca_file = certificates_->server().cert_file;
    HttpClient client(options);
    for (int i = 0; i < 3; ++i) {
      Result reply = co_await client.get("https://localhost:" + std::to_string(upstream.port()) + "/x");
      bodies.push_back(reply ? reply->body : reply.error().message);
    }
  });
  EXPECT_EQ(bodies, (std::vector<std::string>{"ok 1", "ok 2", "ok 3"}));
  EXPECT_EQ(upstream.handshakes(), 1);
}

TEST_P(HttpsClientTest, AnUntrustedCertificateIsATlsError) {
  TlsUpstream upstream(certificates_->server());
  std::optional<Result> got;
  run([&]() -> Task<void> {
    HttpClientOptions options;
    options.tls.ca_file = certificates_->other().cert_file;
    HttpClient client(options);
    got.emplace(co_await client.get("https://localhost:" + std::to_string(upstream.port()) + "/"));
  });
  ASSERT_FALSE(*got);
  EXPECT_EQ(got->error().kind, ClientErrorKind::tls) << got->error().message;
  EXPECT_NE(got->error().message.find("certificate verify failed"), std::string::npos) << got->error().message;
}

}  // namespace
}  // namespace tiffany
