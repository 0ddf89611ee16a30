// TlsTestClient: a blocking OpenSSL client for integration tests that openssl
// s_client cannot script reliably (exact round trips, resets mid-stream).
#pragma once

#include <openssl/ssl.h>

#include <chrono>
#include <memory>
#include <string>
#include <string_view>

#include <tiffany/reactor/unique_fd.hpp>

namespace tiffany::testing {

/// One TLS connection to 127.0.0.1:`port`, made in the constructor. Trusts
/// only `ca_file` and checks the certificate against `server_name`, which it
/// also sends as SNI; offers `alpn` (e.g. "h2") when not empty. Closes with
/// close_notify on destruction.
class TlsTestClient {
 public:
  TlsTestClient(int port, const std::string& ca_file, const std::string& server_name = "localhost",
                const std::string& alpn = "");
  TlsTestClient(const TlsTestClient&) = delete;
  TlsTestClient& operator=(const TlsTestClient&) = delete;
  ~TlsTestClient();

  /// True if the handshake completed; error() says why not.
  bool ok() const { return ok_; }
  const std::string& error() const { return error_; }
  /// The protocol the server chose by ALPN ("" when none).
  std::string alpn_selected() const;

  bool send(std::string_view data);
  /// Reads until `size` bytes arrived, the server closed, or `timeout` passed.
  std::string receive(std::size_t size, std::chrono::milliseconds timeout = std::chrono::seconds(10));
  /// Reads until what arrived ends with `marker` (e.g. a response's body), the
  /// server closed, or `timeout` passed; returns all of it.
  std::string receive_until(std::string_view marker, std::chrono::milliseconds timeout = std::chrono::seconds(10));
  int fd() const { return fd_.get(); }
  /// True once a receive saw the server close (close_notify, EOF or an error),
  /// as opposed to running out of time.
  bool closed() const { return closed_; }
  /// Drops the connection with a TCP reset (SO_LINGER 0), without close_notify.
  void reset();

 private:
  struct SslCtxFree {
    void operator()(SSL_CTX* ctx) const { SSL_CTX_free(ctx); }
  };
  struct SslFree {
    void operator()(SSL* ssl) const { SSL_free(ssl); }
  };
  std::unique_ptr<SSL_CTX, SslCtxFree> ctx_;
  std::unique_ptr<SSL, SslFree> ssl_;
  UniqueFd fd_;
  bool ok_ = false;
  bool closed_ = false;
  std::string error_;
};

}  // namespace tiffany::testing
