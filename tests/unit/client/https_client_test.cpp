// HttpClient over https:// against an in-process TLS server with a test
// certificate: verified with its CA, keep-alive reuse over TLS (session
// tickets on the idle connection do not make it look dead), and an
// untrusted certificate refused as a tls error.
#include <tiffany/client/http_client.hpp>

#include <sys/socket.h>
#include <unistd.h>

#include <csignal>

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "support/loopback_socket.hpp"
#include "support/test_certificate.hpp"
#include "unit/reactor/reactor_fixture.hpp"

namespace tiffany {
namespace {

using Result = ClientResult<ClientResponse>;

// Serves HTTP/1.1 over TLS with blocking OpenSSL on its own thread: each
// connection answers every request "ok <n>" (n counts its requests).
class TlsUpstream {
 public:
  explicit TlsUpstream(const testing::TestCertificate& certificate) : context_(SSL_CTX_new(TLS_server_method())) {
    SSL_CTX_use_certificate_chain_file(context_, certificate.cert_file.c_str());
    SSL_CTX_use_PrivateKey_file(context_, certificate.key_file.c_str(), SSL_FILETYPE_PEM);
    thread_ = std::thread([this] { serve(); });
  }
  ~TlsUpstream() {
    stopping_ = true;
    ::shutdown(listener_.fd.get(), SHUT_RDWR);
    const int fd = current_.load();
    if (fd >= 0) ::shutdown(fd, SHUT_RDWR);
    thread_.join();
    SSL_CTX_free(context_);
  }
  int port() const { return listener_.port(); }
  int connections() const { return connections_.load(); }
  int handshakes() const { return handshakes_.load(); }

 private:
  void serve() {
    for (;;) {
      const int fd = ::accept4(listener_.fd.get(), nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0 || stopping_) {
        if (fd >= 0) ::close(fd);
        return;
      }
      ++connections_;
      current_ = fd;
      SSL* ssl = SSL_new(context_);
      SSL_set_fd(ssl, fd);
      if (SSL_accept(ssl) == 1) {
        ++handshakes_;
        std::string buffer;
        char data[4096];
        for (int n = 1;; ++n) {
          while (buffer.find("\r\n\r\n") == std::string::npos) {
            const int got = SSL_read(ssl, data, sizeof data);
            if (got <= 0) break;
            buffer.append(data, static_cast<std::size_t>(got));
          }
          const std::size_t end = buffer.find("\r\n\r\n");
          if (end == std::string::npos) break;
          buffer.erase(0, end + 4);
          const std::string body = "ok " + std::to_string(n);
          const std::string reply =
              "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
          if (SSL_write(ssl, reply.data(), static_cast<int>(reply.size())) <= 0) break;
        }
        SSL_shutdown(ssl);
      }
      SSL_free(ssl);
      ERR_clear_error();
      current_ = -1;
      ::close(fd);
    }
  }

  testing::LoopbackSocket listener_{true};
  SSL_CTX* context_;
  std::thread thread_;
  std::atomic<int> current_{-1};
  std::atomic<int> connections_{0};
  std::atomic<int> handshakes_{0};
  std::atomic<bool> stopping_{false};
};

class HttpsClientTest : public ReactorTest {
 protected:
  static void SetUpTestSuite() {
    ::signal(SIGPIPE, SIG_IGN);  // the blocking server may write to a client that has gone
    // Why a new folder per suite run: the TLS client caches its context per CA
    // file path, so a certificate rewritten at the same path (--gtest_repeat)
    // would meet the old CA.
    static int runs = 0;
    directory_ = std::filesystem::temp_directory_path() /
                 ("tiffany-https-client-" + std::to_string(::getpid()) + "-" + std::to_string(++runs));
    std::filesystem::create_directories(directory_);
    server_certificate_ = testing::write_test_certificate(directory_, "server", "a.test", {"a.test", "localhost"});
    other_certificate_ = testing::write_test_certificate(directory_, "other", "b.test", {"b.test"});
  }
  static void TearDownTestSuite() { std::filesystem::remove_all(directory_); }

  void run(const std::function<Task<void>()>& body) {
    (void)scheduler().spawn(body());
    scheduler().run();
  }

  static inline std::filesystem::path directory_;
  static inline testing::TestCertificate server_certificate_;
  static inline testing::TestCertificate other_certificate_;
};

INSTANTIATE_TEST_SUITE_P(Backends, HttpsClientTest, all_backends(), backend_name);

TEST_P(HttpsClientTest, VerifiedRequestsReuseOneTlsConnection) {
  TlsUpstream upstream(server_certificate_);
  std::vector<std::string> bodies;
  run([&]() -> Task<void> {
    HttpClientOptions options;
    options.tls.ca_file = server_certificate_.cert_file;
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
  TlsUpstream upstream(server_certificate_);
  std::optional<Result> got;
  run([&]() -> Task<void> {
    HttpClientOptions options;
    options.tls.ca_file = other_certificate_.cert_file;
    HttpClient client(options);
    got.emplace(co_await client.get("https://localhost:" + std::to_string(upstream.port()) + "/"));
  });
  ASSERT_FALSE(*got);
  EXPECT_EQ(got->error().kind, ClientErrorKind::tls) << got->error().message;
  EXPECT_NE(got->error().message.find("certificate verify failed"), std::string::npos) << got->error().message;
}

}  // namespace
}  // namespace tiffany
