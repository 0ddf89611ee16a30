// BlockingTlsServer and TlsTestCertificates: the in-process TLS peer the TLS client tests talk to.
#pragma once

#include <openssl/ssl.h>

#include <atomic>
#include <filesystem>
#include <functional>
#include <thread>

#include "support/loopback_socket.hpp"
#include "support/test_certificate.hpp"

namespace tiffany::testing {

/// A TLS server on a loopback port, on its own thread with blocking OpenSSL:
/// it accepts connections one after another and hands each established
/// session to `session` (which reads and writes until it is done), then
/// closes it. The destructor unblocks whatever the thread waits on.
class BlockingTlsServer {
 public:
  using Session = std::function<void(SSL*)>;
  /// `offer_h2`: the server picks "h2" when the client offers it by ALPN.
  BlockingTlsServer(const TestCertificate& certificate, Session session, bool offer_h2 = false);
  ~BlockingTlsServer();
  BlockingTlsServer(const BlockingTlsServer&) = delete;
  BlockingTlsServer& operator=(const BlockingTlsServer&) = delete;

  int port() const { return listener_.port(); }
  /// Connections accepted, and how many of them completed the handshake.
  int connections() const { return connections_.load(); }
  int handshakes() const { return handshakes_.load(); }

 private:
  void serve();

  LoopbackSocket listener_{true};
  SSL_CTX* context_;
  Session session_;
  std::thread thread_;
  std::atomic<int> current_{-1};  // the connection being served, for the destructor to shut down
  std::atomic<int> connections_{0};
  std::atomic<int> handshakes_{0};
  std::atomic<bool> stopping_{false};
};

/// A suite's certificates in a folder of its own, made once per suite run:
/// "server" (a.test, localhost) and "other" (b.test). Also ignores SIGPIPE:
/// the blocking server may still write (TLS 1.3 session tickets) to a
/// client that has gone, and a send must fail, not kill the test.
class TlsTestCertificates {
 public:
  explicit TlsTestCertificates(const std::string& name);
  ~TlsTestCertificates();
  const TestCertificate& server() const { return server_; }
  const TestCertificate& other() const { return other_; }

 private:
  std::filesystem::path directory_;
  TestCertificate server_;
  TestCertificate other_;
};

}  // namespace tiffany::testing
