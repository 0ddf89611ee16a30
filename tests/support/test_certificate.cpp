// Self-signed test certificates: EVP_EC_gen, X509 fields, SAN, sign, PEM.
#include "support/test_certificate.hpp"

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <functional>
#include <memory>
#include <stdexcept>

namespace tiffany::testing {
namespace {

void check(bool ok, const char* what) {
  if (!ok) throw std::runtime_error(std::string("test certificate: ") + what + " failed");
}

void write_pem(const std::string& path, const std::function<int(BIO*)>& write) {
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new_file(path.c_str(), "w"), BIO_free);
  check(bio != nullptr, "BIO_new_file");
  check(write(bio.get()) == 1, "PEM write");
}

}  // namespace

TestCertificate write_test_certificate(const std::string& directory, const std::string& stem,
                                       const std::string& common_name, const std::vector<std::string>& dns_names) {
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(EVP_EC_gen("P-256"), EVP_PKEY_free);
  check(key != nullptr, "EVP_EC_gen");
  std::unique_ptr<X509, decltype(&X509_free)> certificate(X509_new(), X509_free);
  X509* x = certificate.get();
  check(X509_set_version(x, 2) == 1, "X509_set_version");
  check(ASN1_INTEGER_set(X509_get_serialNumber(x), 1) == 1, "serial");
  check(X509_gmtime_adj(X509_getm_notBefore(x), -60) != nullptr, "notBefore");
  check(X509_gmtime_adj(X509_getm_notAfter(x), 24 * 3600) != nullptr, "notAfter");
  check(X509_set_pubkey(x, key.get()) == 1, "X509_set_pubkey");
  X509_NAME* name = X509_get_subject_name(x);
  check(X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                                   reinterpret_cast<const unsigned char*>(common_name.c_str()), -1, -1, 0) == 1,
        "CN");
  check(X509_set_issuer_name(x, name) == 1, "issuer");
  if (!dns_names.empty()) {
    std::string alt_names;
    for (const std::string& dns : dns_names) alt_names += (alt_names.empty() ? "DNS:" : ",DNS:") + dns;
    X509V3_CTX context;
    X509V3_set_ctx_nodb(&context);
    X509V3_set_ctx(&context, x, x, nullptr, nullptr, 0);
    X509_EXTENSION* extension = X509V3_EXT_conf_nid(nullptr, &context, NID_subject_alt_name, alt_names.c_str());
    check(extension != nullptr, "subjectAltName");
    check(X509_add_ext(x, extension, -1) == 1, "X509_add_ext");
    X509_EXTENSION_free(extension);
  }
  check(X509_sign(x, key.get(), EVP_sha256()) > 0, "X509_sign");

  TestCertificate files{directory + "/" + stem + ".crt", directory + "/" + stem + ".key"};
  write_pem(files.cert_file, [&](BIO* bio) { return PEM_write_bio_X509(bio, x); });
  write_pem(files.key_file,
            [&](BIO* bio) { return PEM_write_bio_PrivateKey(bio, key.get(), nullptr, nullptr, 0, nullptr, nullptr); });
  return files;
}

}  // namespace tiffany::testing
