// BlockingTlsServer: accept, handshake and hand over, one connection at a time; TlsTestCertificates: a suite's pair.
#include "support/blocking_tls_server.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <csignal>
#include <string>

#include <openssl/err.h>

namespace tiffany::testing {
namespace {

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

}  // namespace

BlockingTlsServer::BlockingTlsServer(const TestCertificate& certificate, Session session, bool offer_h2)
    : context_(SSL_CTX_new(TLS_server_method())), session_(std::move(session)) {
  SSL_CTX_use_certificate_chain_file(context_, certificate.cert_file.c_str());
  SSL_CTX_use_PrivateKey_file(context_, certificate.key_file.c_str(), SSL_FILETYPE_PEM);
  if (offer_h2) SSL_CTX_set_alpn_select_cb(context_, &select_h2, nullptr);
  thread_ = std::thread([this] { serve(); });
}

BlockingTlsServer::~BlockingTlsServer() {
  stopping_ = true;
  ::shutdown(listener_.fd.get(), SHUT_RDWR);  // unblocks accept
  const int fd = current_.load();
  if (fd >= 0) ::shutdown(fd, SHUT_RDWR);  // unblocks a session's read
  thread_.join();
  SSL_CTX_free(context_);
}

void BlockingTlsServer::serve() {
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
      session_(ssl);
      SSL_shutdown(ssl);
    }
    SSL_free(ssl);
    ERR_clear_error();
    current_ = -1;
    ::close(fd);
  }
}

TlsTestCertificates::TlsTestCertificates(const std::string& name) {
  ::signal(SIGPIPE, SIG_IGN);
  // Why a new folder per run: the TLS client caches its context per CA file
  // path, so a certificate rewritten at the same path (--gtest_repeat) would
  // meet the old CA.
  static int runs = 0;
  directory_ = std::filesystem::temp_directory_path() /
               ("tiffany-" + name + "-" + std::to_string(::getpid()) + "-" + std::to_string(++runs));
  std::filesystem::create_directories(directory_);
  server_ = write_test_certificate(directory_, "server", "a.test", {"a.test", "localhost"});
  other_ = write_test_certificate(directory_, "other", "b.test", {"b.test"});
}

TlsTestCertificates::~TlsTestCertificates() {
  std::error_code ignored;
  std::filesystem::remove_all(directory_, ignored);
}

}  // namespace tiffany::testing
