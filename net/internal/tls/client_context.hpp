// The TLS client's SSL_CTX per worker and options, and the SSL of one outbound connection.
#pragma once

#include <string>
#include <string_view>

#include <tiffany/net/tcp_connect.hpp>

#include "net/engine/tls/openssl_handles.hpp"

namespace tiffany::tls {

/// This thread's client context for `options` (peer verification, CA file,
/// ALPN list), made on first use and kept for the thread's life, so every
/// connection with the same options shares it. nullptr, with `error` saying
/// why, when the CA file or the system store cannot be loaded or the ALPN
/// list is malformed.
SSL_CTX* client_context(const TlsClientOptions& options, std::string& error);

/// A client SSL for a connection to `host`: SNI and the certificate's
/// expected name (options.server_name, else `host` when it is a name; an
/// address literal is checked as an IP address, without SNI). nullptr, with
/// `error` set, if OpenSSL refuses.
SslPtr new_client_connection(SSL_CTX* context, const TlsClientOptions& options, std::string_view host,
                             std::string& error);

/// Why a client handshake failed, for a message: the verification result if
/// the certificate was refused ("certificate verify failed: hostname
/// mismatch"), else OpenSSL's reason `failure`, else that the peer left.
std::string client_handshake_failure(SSL* ssl, const std::string& failure);

}  // namespace tiffany::tls
