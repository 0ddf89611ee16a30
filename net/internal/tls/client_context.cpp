// TLS client contexts cached per thread and options; client SSLs with SNI, host check and ALPN.
#include "net/internal/tls/client_context.hpp"

#include <openssl/err.h>
#include <openssl/x509v3.h>

#include <unordered_map>

#include <tiffany/net/socket_address.hpp>

namespace tiffany::tls {
namespace {

// ALPN's wire form: each name prefixed by its length. Empty if a name is empty or too long.
std::string alpn_wire(const std::vector<std::string>& protocols) {
  std::string wire;
  for (const std::string& name : protocols) {
    if (name.empty() || name.size() > 255) return {};
    wire += static_cast<char>(name.size());
    wire += name;
  }
  return wire;
}

}  // namespace

SSL_CTX* client_context(const TlsClientOptions& options, std::string& error) {
  // Why per thread: a worker's connections share one without locks; SSL_new
  // on it is the only per-connection cost.
  static thread_local std::unordered_map<std::string, SslCtxPtr> contexts;
  const std::string wire = alpn_wire(options.alpn);
  if (wire.empty() && !options.alpn.empty()) {
    error = "an ALPN protocol name is empty or longer than 255 bytes";
    return nullptr;
  }
  std::string key = (options.verify_peer ? "v:" : "n:") + options.ca_file + '\0' + wire;
  if (auto found = contexts.find(key); found != contexts.end()) return found->second.get();

  SslCtxPtr context(SSL_CTX_new(TLS_client_method()));
  if (!context) {
    error = take_openssl_error("OpenSSL could not make a client context");
    return nullptr;
  }
  SSL_CTX* raw = context.get();
  SSL_CTX_set_min_proto_version(raw, TLS1_2_VERSION);
  SSL_CTX_set_options(raw, SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION);
  // Why: TlsStream writes in pieces as the socket drains, retrying with the
  // remaining bytes; idle connections give their record buffers back.
  SSL_CTX_set_mode(raw, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_RELEASE_BUFFERS);
  if (options.verify_peer) {
    SSL_CTX_set_verify(raw, SSL_VERIFY_PEER, nullptr);
    const bool loaded = options.ca_file.empty()
                            ? SSL_CTX_set_default_verify_paths(raw) == 1
                            : SSL_CTX_load_verify_locations(raw, options.ca_file.c_str(), nullptr) == 1;
    if (!loaded) {
      error = (options.ca_file.empty() ? std::string("the system's CA store")
                                       : "CA file \"" + options.ca_file + "\"") +
              " could not be loaded (" + take_openssl_error() + ")";
      return nullptr;
    }
  } else {
    SSL_CTX_set_verify(raw, SSL_VERIFY_NONE, nullptr);
  }
  // Note: SSL_CTX_set_alpn_protos returns 0 on success, unlike its neighbours.
  if (!wire.empty() && SSL_CTX_set_alpn_protos(raw, reinterpret_cast<const unsigned char*>(wire.data()),
                                               static_cast<unsigned int>(wire.size())) != 0) {
    error = take_openssl_error("OpenSSL refused the ALPN list");
    return nullptr;
  }
  return contexts.emplace(std::move(key), std::move(context)).first->second.get();
}

SslPtr new_client_connection(SSL_CTX* context, const TlsClientOptions& options, std::string_view host,
                             std::string& error) {
  SslPtr ssl(SSL_new(context));
  if (!ssl) {
    error = take_openssl_error("OpenSSL could not make a connection");
    return nullptr;
  }
  const std::string name = options.server_name.empty() ? std::string(host) : options.server_name;
  const auto literal = SocketAddress::from_numeric(name);
  bool named = true;
  if (literal) {
    // Why no SNI: RFC 6066 forbids an address in server_name; the certificate must name the IP.
    if (options.verify_peer) named = X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl.get()), literal->host().c_str()) == 1;
  } else {
    named = SSL_set_tlsext_host_name(ssl.get(), name.c_str()) == 1 &&
            (!options.verify_peer || SSL_set1_host(ssl.get(), name.c_str()) == 1);
  }
  if (!named) {
    error = "\"" + name + "\" cannot be checked against a certificate (" + take_openssl_error() + ")";
    return nullptr;
  }
  SSL_set_connect_state(ssl.get());
  return ssl;
}

std::string client_handshake_failure(SSL* ssl, const std::string& failure) {
  const long verified = SSL_get_verify_result(ssl);
  if (verified != X509_V_OK) {
    return std::string("certificate verify failed: ") + X509_verify_cert_error_string(verified);
  }
  if (!failure.empty()) return failure;
  return "the server closed the connection during the handshake";
}

}  // namespace tiffany::tls
