// Owning pointers for OpenSSL objects, and the text of OpenSSL's error queue.
#pragma once

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <memory>
#include <string>

namespace tiffany::tls {

struct SslCtxFree {
  void operator()(SSL_CTX* ctx) const noexcept { SSL_CTX_free(ctx); }
};
struct SslFree {
  void operator()(SSL* ssl) const noexcept { SSL_free(ssl); }
};
struct BioFree {
  void operator()(BIO* bio) const noexcept { BIO_free(bio); }
};
struct X509Free {
  void operator()(X509* certificate) const noexcept { X509_free(certificate); }
};
struct EvpPkeyFree {
  void operator()(EVP_PKEY* key) const noexcept { EVP_PKEY_free(key); }
};

using SslCtxPtr = std::unique_ptr<SSL_CTX, SslCtxFree>;
using SslPtr = std::unique_ptr<SSL, SslFree>;
using BioPtr = std::unique_ptr<BIO, BioFree>;
using X509Ptr = std::unique_ptr<X509, X509Free>;
using EvpPkeyPtr = std::unique_ptr<EVP_PKEY, EvpPkeyFree>;

/// The reason of the oldest error in this thread's OpenSSL error queue
/// (e.g. "no start line"), or `fallback` if it is empty. Clears the queue.
std::string take_openssl_error(const char* fallback = "unknown OpenSSL error");

}  // namespace tiffany::tls
