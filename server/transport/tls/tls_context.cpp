// TlsContext: loading PEM files with precise errors, OpenSSL settings, SNI and ALPN.
#include "server/transport/tls/tls_context.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/pem.h>

#include <cerrno>
#include <cstring>
#include <new>

#include <tiffany/reactor/unique_fd.hpp>

#include "conf/config_error.hpp"

namespace tiffany::tls {
namespace {

constexpr unsigned char kSessionIdContext[] = "tiffany";

std::string quoted(const std::string& path) { return "\"" + path + "\""; }

// The whole of a (small) PEM file, or a ConfigError at `json_path`.
std::string read_pem_file(const std::string& path, const std::string& config_file, const std::string& json_path) {
  const auto refuse = [&](int error) {
    throw ConfigError(config_file, json_path, "cannot read " + quoted(path) + ": " + std::strerror(error));
  };
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) refuse(errno);
  struct stat info {};
  if (::fstat(fd.get(), &info) != 0) refuse(errno);
  if (S_ISDIR(info.st_mode)) refuse(EISDIR);
  std::string text;
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) refuse(errno);
    if (n == 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
    if (text.size() > (1u << 20)) {
      throw ConfigError(config_file, json_path, quoted(path) + " is larger than 1 MiB; expected a PEM file");
    }
  }
  return text;
}

BioPtr memory_bio(const std::string& text) {
  BioPtr bio(BIO_new_mem_buf(text.data(), static_cast<int>(text.size())));
  if (!bio) throw std::bad_alloc();
  return bio;
}

// Why: OpenSSL's default for an encrypted key is to prompt on the terminal,
// which would hang a server starting in the background.
int refuse_passphrase(char*, int, int, void*) { return 0; }

bool is_end_of_pem(unsigned long error) {
  return ERR_GET_LIB(error) == ERR_LIB_PEM && ERR_GET_REASON(error) == PEM_R_NO_START_LINE;
}

void use_certificate_chain(SSL_CTX* ctx, const TlsCertificateConfig& certificate, const std::string& config_file) {
  const std::string json_path = certificate.json_path + ".cert";
  const std::string& path = certificate.cert_file;
  const std::string text = read_pem_file(path, config_file, json_path);
  const BioPtr bio = memory_bio(text);
  X509Ptr leaf(PEM_read_bio_X509_AUX(bio.get(), nullptr, nullptr, nullptr));
  if (!leaf) {
    if (text.find("CERTIFICATE-----") == std::string::npos) {
      ERR_clear_error();
      throw ConfigError(config_file, json_path, quoted(path) + " holds no PEM certificate");
    }
    throw ConfigError(config_file, json_path,
                      "the certificate in " + quoted(path) + " is damaged (" + take_openssl_error() + ")");
  }
  if (SSL_CTX_use_certificate(ctx, leaf.get()) != 1) {
    throw ConfigError(config_file, json_path,
                      "cannot use the certificate in " + quoted(path) + ": " + take_openssl_error());
  }
  for (;;) {  // the rest of the chain, leaf first as in a web server's usual bundle
    X509Ptr next(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
    if (!next) {
      if (is_end_of_pem(ERR_peek_last_error())) break;
      throw ConfigError(config_file, json_path,
                        "bad certificate in the chain in " + quoted(path) + ": " + take_openssl_error());
    }
    if (SSL_CTX_add0_chain_cert(ctx, next.get()) != 1) {
      throw ConfigError(config_file, json_path,
                        "cannot use a chain certificate in " + quoted(path) + ": " + take_openssl_error());
    }
    (void)next.release();  // add0: the context owns it now
  }
  ERR_clear_error();
}

void use_private_key(SSL_CTX* ctx, const TlsCertificateConfig& certificate, const std::string& config_file) {
  const std::string json_path = certificate.json_path + ".key";
  const std::string& path = certificate.key_file;
  const std::string text = read_pem_file(path, config_file, json_path);
  const BioPtr bio = memory_bio(text);
  const EvpPkeyPtr key(PEM_read_bio_PrivateKey(bio.get(), nullptr, refuse_passphrase, nullptr));
  if (!key) {
    if (text.find("ENCRYPTED") != std::string::npos) {
      ERR_clear_error();
      throw ConfigError(config_file, json_path,
                        quoted(path) + " is encrypted; expected an unencrypted PEM private key");
    }
    if (text.find("PRIVATE KEY-----") == std::string::npos) {
      ERR_clear_error();
      throw ConfigError(config_file, json_path, quoted(path) + " holds no PEM private key");
    }
    throw ConfigError(
        config_file, json_path,
        "the private key in " + quoted(path) + " is damaged or of an unsupported type (" + take_openssl_error() + ")");
  }
  if (SSL_CTX_use_PrivateKey(ctx, key.get()) != 1 || SSL_CTX_check_private_key(ctx) != 1) {
    ERR_clear_error();
    throw ConfigError(
        config_file, json_path,
        "the key in " + quoted(path) + " does not match the certificate in " + quoted(certificate.cert_file));
  }
}

// Applies the TLS 1.3 `suites` to `ctx`; returns the first name OpenSSL does
// not know, or "" when all are known.
// Why check each name: OpenSSL 3 skips unknown suites silently, so a typo
// would quietly leave a listener with fewer suites than configured.
std::string first_unknown_suite(SSL_CTX* ctx, const std::string& suites) {
  if (SSL_CTX_set_ciphersuites(ctx, suites.c_str()) != 1) {
    ERR_clear_error();
    return suites;
  }
  const STACK_OF(SSL_CIPHER)* enabled = SSL_CTX_get_ciphers(ctx);
  std::size_t start = 0;
  while (start <= suites.size()) {
    std::size_t end = suites.find(':', start);
    if (end == std::string::npos) end = suites.size();
    const std::string name = suites.substr(start, end - start);
    bool known = false;
    for (int i = 0; !known && i < sk_SSL_CIPHER_num(enabled); ++i) {
      known = name == SSL_CIPHER_get_name(sk_SSL_CIPHER_value(enabled, i));
    }
    if (!known) return name.empty() ? suites : name;
    start = end + 1;
  }
  return "";
}

SslCtxPtr make_context(const TlsConfig& config, const std::string& config_file) {
  SslCtxPtr ctx(SSL_CTX_new(TLS_server_method()));
  if (!ctx) throw std::bad_alloc();
  SSL_CTX* raw = ctx.get();
  SSL_CTX_set_min_proto_version(raw, config.min_version == TlsVersion::tls1_3 ? TLS1_3_VERSION : TLS1_2_VERSION);
  SSL_CTX_set_options(
      raw, SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION | (config.session_tickets ? 0 : SSL_OP_NO_TICKET));
  if (!config.session_tickets) SSL_CTX_set_num_tickets(raw, 0);
  // Why no session cache with tickets: the ticket carries the session, so the
  // cache would only cost a locked insert per full TLS 1.2 handshake (and a
  // lock shared by workers). Without tickets it lets TLS 1.2 resume by ID.
  SSL_CTX_set_session_cache_mode(
      raw, config.session_tickets ? SSL_SESS_CACHE_SERVER | SSL_SESS_CACHE_NO_INTERNAL : SSL_SESS_CACHE_SERVER);
  // Why: TlsStream writes in pieces as the socket drains, retrying with the
  // remaining bytes; idle connections give their record buffers back.
  SSL_CTX_set_mode(raw, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_RELEASE_BUFFERS);
  if (SSL_CTX_set_cipher_list(raw, config.ciphers.c_str()) != 1) {
    throw ConfigError(config_file, config.json_path + ".ciphers",
                      "no cipher in \"" + config.ciphers + "\" is known to OpenSSL (" + take_openssl_error() + ")");
  }
  const std::string unknown_suite = first_unknown_suite(raw, config.ciphersuites);
  if (!unknown_suite.empty()) {
    throw ConfigError(config_file, config.json_path + ".ciphersuites",
                      "unknown TLS 1.3 suite \"" + unknown_suite +
                          "\"; expected names separated by ':' such as \"TLS_AES_128_GCM_SHA256\"");
  }
  // Why: resumption by session ID (TLS 1.2 without tickets) needs one, and
  // SNI switches contexts mid-handshake, so all of a listener's must agree.
  SSL_CTX_set_session_id_context(raw, kSessionIdContext, sizeof kSessionIdContext - 1);
  return ctx;
}

std::string lower_case(std::string_view text) {
  std::string lower(text);
  for (char& c : lower) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return lower;
}

}  // namespace

TlsContext::TlsContext(const TlsConfig& config, const std::string& config_file, const std::vector<std::string>& alpn)
    : handshake_timeout_(config.handshake_timeout) {
  for (const std::string& protocol : alpn) {
    alpn_wire_.push_back(static_cast<char>(protocol.size()));
    alpn_wire_ += protocol;
  }
  for (const TlsCertificateConfig& certificate : config.certificates) {
    SslCtxPtr ctx = make_context(config, config_file);
    use_certificate_chain(ctx.get(), certificate, config_file);
    use_private_key(ctx.get(), certificate, config_file);
    if (!alpn_wire_.empty()) SSL_CTX_set_alpn_select_cb(ctx.get(), &TlsContext::on_alpn, this);
    for (const std::string& name : certificate.server_names) by_name_.emplace(name, ctx.get());
    contexts_.push_back(std::move(ctx));
  }
  if (contexts_.size() > 1) {
    SSL_CTX_set_tlsext_servername_callback(contexts_.front().get(), &TlsContext::on_server_name);
    SSL_CTX_set_tlsext_servername_arg(contexts_.front().get(), this);
  }
}

SSL_CTX* TlsContext::context_for(std::string_view server_name) const {
  if (server_name.ends_with('.')) server_name.remove_suffix(1);
  const std::string name = lower_case(server_name);
  if (auto exact = by_name_.find(name); exact != by_name_.end()) return exact->second;
  const auto dot = name.find('.');
  if (dot == std::string::npos || dot == 0) return nullptr;
  auto wildcard = by_name_.find("*" + name.substr(dot));
  return wildcard != by_name_.end() ? wildcard->second : nullptr;
}

int TlsContext::on_server_name(SSL* ssl, int*, void* self) {
  const char* name = SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name);
  if (name == nullptr) return SSL_TLSEXT_ERR_NOACK;  // no SNI: the default certificate
  SSL_CTX* chosen = static_cast<const TlsContext*>(self)->context_for(name);
  if (chosen == nullptr) return SSL_TLSEXT_ERR_NOACK;  // an unknown name: the default certificate
  if (chosen != SSL_get_SSL_CTX(ssl)) SSL_set_SSL_CTX(ssl, chosen);
  return SSL_TLSEXT_ERR_OK;
}

int TlsContext::on_alpn(SSL*, const unsigned char** out, unsigned char* out_length, const unsigned char* offered,
                        unsigned int offered_length, void* self) {
  const std::string& ours = static_cast<const TlsContext*>(self)->alpn_wire_;
  unsigned char* selected = nullptr;
  const int outcome = SSL_select_next_proto(&selected, out_length, reinterpret_cast<const unsigned char*>(ours.data()),
                                            static_cast<unsigned int>(ours.size()), offered, offered_length);
  // Why ours first: SSL_select_next_proto takes the first of our list the
  // client offers, so "h2" wins over "http/1.1" whatever the client's order.
  // Why fatal: RFC 7301 asks for a no_application_protocol alert when the
  // client offers protocols and none is ours (e.g. only "h2" to an HTTP/1.1 listener).
  if (outcome != OPENSSL_NPN_NEGOTIATED) return SSL_TLSEXT_ERR_ALERT_FATAL;
  *out = selected;
  return SSL_TLSEXT_ERR_OK;
}

}  // namespace tiffany::tls
