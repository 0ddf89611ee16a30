// TlsContext: a TLS listener's certificates and settings, built once at start-up.
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "conf/config.hpp"
#include "net/engine/tls/openssl_handles.hpp"

namespace tiffany::tls {

/// One SSL_CTX per certificate of a listener's `tls` config; the first is the
/// default, and SNI picks among them during each handshake.
///
/// Built once at start-up and immutable afterwards, so connections on any
/// worker thread may share it (SSL_new on a shared SSL_CTX is thread-safe).
/// Must outlive every connection made from it; not movable (OpenSSL's
/// callbacks point at it).
class TlsContext {
 public:
  /// Reads and checks every certificate chain and key (readable, PEM, the key
  /// matching its certificate), then applies the minimum version, ciphers,
  /// session tickets and, if `alpn` is not empty, ALPN: the protocols this
  /// listener speaks, ours preferred in this order ({"h2", "http/1.1"}); a
  /// client offering only others is refused.
  /// Throws ConfigError naming `config_file` and the JSON path of the problem.
  TlsContext(const TlsConfig& config, const std::string& config_file, const std::vector<std::string>& alpn);
  TlsContext(const TlsContext&) = delete;
  TlsContext& operator=(const TlsContext&) = delete;

  /// The context of the default certificate, which every connection starts
  /// on (TlsStream's server side); SNI may switch it during the handshake.
  SSL_CTX* default_context() const noexcept { return contexts_.front().get(); }
  /// How long a handshake may take before the connection is closed.
  std::chrono::milliseconds handshake_timeout() const noexcept { return handshake_timeout_; }
  /// The context whose certificate serves `server_name` (exact names first,
  /// then "*." wildcards, case-insensitive), or nullptr if none does.
  SSL_CTX* context_for(std::string_view server_name) const;

 private:
  static int on_server_name(SSL* ssl, int* alert, void* self);
  static int on_alpn(SSL* ssl, const unsigned char** out, unsigned char* out_length, const unsigned char* offered,
                     unsigned int offered_length, void* self);

  std::vector<SslCtxPtr> contexts_;                    // parallel to the config's certificates
  std::unordered_map<std::string, SSL_CTX*> by_name_;  // "a.test", "*.b.test"
  std::string alpn_wire_;                              // length-prefixed, as on the wire
  std::chrono::milliseconds handshake_timeout_;
};

}  // namespace tiffany::tls
