// TlsTestClient: connect, handshake, send, receive with a deadline, reset.
#include "tls_test_client.hpp"

#include <sys/socket.h>
#include <sys/time.h>

#include <openssl/err.h>

#include <cerrno>

#include "echo_client.hpp"

namespace tiffany::testing {
namespace {

std::string openssl_error() {
  char text[256] = "";
  ERR_error_string_n(ERR_get_error(), text, sizeof text);
  ERR_clear_error();
  return text;
}

}  // namespace

TlsTestClient::TlsTestClient(int port, const std::string& ca_file, const std::string& server_name,
                             const std::string& alpn)
    : ctx_(SSL_CTX_new(TLS_client_method())), fd_(connect_loopback(port)) {
  if (!fd_) {
    error_ = "cannot connect";
    return;
  }
  SSL_CTX_set_verify(ctx_.get(), SSL_VERIFY_PEER, nullptr);
  if (SSL_CTX_load_verify_locations(ctx_.get(), ca_file.c_str(), nullptr) != 1) {
    error_ = "cannot load " + ca_file + ": " + openssl_error();
    return;
  }
  const timeval patience{10, 0};  // a stalled server fails the test instead of hanging it
  ::setsockopt(fd_.get(), SOL_SOCKET, SO_RCVTIMEO, &patience, sizeof patience);
  ssl_.reset(SSL_new(ctx_.get()));
  SSL_set_fd(ssl_.get(), fd_.get());
  SSL_set_tlsext_host_name(ssl_.get(), server_name.c_str());
  SSL_set1_host(ssl_.get(), server_name.c_str());
  if (!alpn.empty()) {
    std::string wire_form(1, static_cast<char>(alpn.size()));  // RFC 7301 §3.1: length-prefixed names
    wire_form += alpn;
    SSL_set_alpn_protos(ssl_.get(), reinterpret_cast<const unsigned char*>(wire_form.data()),
                        static_cast<unsigned>(wire_form.size()));
  }
  if (SSL_connect(ssl_.get()) != 1) {
    error_ = "handshake failed: " + openssl_error();
    return;
  }
  ok_ = true;
}

TlsTestClient::~TlsTestClient() {
  if (ok_ && fd_) SSL_shutdown(ssl_.get());
  ERR_clear_error();
}

std::string TlsTestClient::alpn_selected() const {
  const unsigned char* name = nullptr;
  unsigned length = 0;
  if (ssl_) SSL_get0_alpn_selected(ssl_.get(), &name, &length);
  return name == nullptr ? std::string() : std::string(reinterpret_cast<const char*>(name), length);
}

bool TlsTestClient::send(std::string_view data) {
  while (!data.empty()) {
    const int n = SSL_write(ssl_.get(), data.data(), static_cast<int>(data.size()));
    if (n <= 0) {
      ERR_clear_error();
      return false;
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

std::string TlsTestClient::receive(std::size_t size, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string got;
  char buffer[16 * 1024];
  while (got.size() < size && std::chrono::steady_clock::now() < deadline) {
    timeval tick{0, 100'000};
    ::setsockopt(fd_.get(), SOL_SOCKET, SO_RCVTIMEO, &tick, sizeof tick);
    const int n = SSL_read(ssl_.get(), buffer, sizeof buffer);
    if (n > 0) {
      got.append(buffer, static_cast<std::size_t>(n));
      continue;
    }
    const int error = SSL_get_error(ssl_.get(), n);
    ERR_clear_error();
    if (error != SSL_ERROR_WANT_READ && !(error == SSL_ERROR_SYSCALL && errno == EAGAIN)) {
      closed_ = true;
      break;
    }
  }
  return got;
}

std::string TlsTestClient::receive_until(std::string_view marker, std::chrono::milliseconds timeout) {
  using std::chrono::steady_clock;
  const auto deadline = steady_clock::now() + timeout;
  std::string got;
  while (!got.ends_with(marker) && steady_clock::now() < deadline) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - steady_clock::now());
    const std::string more = receive(1, left);  // whatever one record brings
    if (more.empty()) break;
    got += more;
  }
  return got;
}

void TlsTestClient::reset() {
  const linger abort{1, 0};
  ::setsockopt(fd_.get(), SOL_SOCKET, SO_LINGER, &abort, sizeof abort);
  fd_.reset();
  ok_ = false;
}

}  // namespace tiffany::testing
