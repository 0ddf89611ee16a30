// TlsContext: refusing bad PEM files with the file and JSON path, and
// choosing certificates by server name (exact, wildcard, default).
#include "server/transport/tls/tls_context.hpp"

#include <openssl/pem.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "conf/config_error.hpp"
#include "support/test_certificate.hpp"

namespace tiffany::tls {
namespace {

namespace fs = std::filesystem;

std::string read_text(const std::string& file) {
  std::ifstream in(file);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

class TlsContextTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    directory_ = fs::temp_directory_path() / ("tiffany-tls-context-" + std::to_string(::getpid()));
    fs::create_directories(directory_);
    const std::string dir = directory_.string();
    main_ = testing::write_test_certificate(dir, "main", "main.test", {"main.test"});
    a_ = testing::write_test_certificate(dir, "a", "a.test", {"a.test"});
    b_ = testing::write_test_certificate(dir, "b", "wild.b.test", {"*.b.test"});
    // The main key, encrypted with a passphrase.
    std::unique_ptr<BIO, decltype(&BIO_free)> in(BIO_new_file(main_.key_file.c_str(), "r"), BIO_free);
    std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(
        PEM_read_bio_PrivateKey(in.get(), nullptr, nullptr, nullptr), EVP_PKEY_free);
    std::unique_ptr<BIO, decltype(&BIO_free)> out(BIO_new_file((dir + "/encrypted.key").c_str(), "w"), BIO_free);
    static char passphrase[] = "secret";
    ASSERT_EQ(PEM_write_bio_PrivateKey(out.get(), key.get(), EVP_aes_128_cbc(), nullptr, 0, nullptr, passphrase), 1);
    std::ofstream(dir + "/garbage.pem") << "not a PEM file\n";
  }
  static void TearDownTestSuite() { fs::remove_all(directory_); }

  static std::string path(const std::string& name) { return (directory_ / name).string(); }

  static TlsConfig one(const std::string& cert, const std::string& key) {
    TlsConfig config;
    config.certificates.push_back(TlsCertificateConfig{{}, cert, key, "$.listeners[0].tls"});
    config.json_path = "$.listeners[0].tls";
    return config;
  }

  static std::string refusal(const TlsConfig& config) {
    try {
      TlsContext context(config, "site.json", std::vector<std::string>{"http/1.1"});
    } catch (const ConfigError& e) {
      return e.what();
    }
    return "(accepted)";
  }

  static std::string common_name(SSL_CTX* ctx) {
    if (ctx == nullptr) return "(none)";
    char name[256] = "";
    X509_NAME_get_text_by_NID(X509_get_subject_name(SSL_CTX_get0_certificate(ctx)), NID_commonName, name, sizeof name);
    return name;
  }

  static inline fs::path directory_;
  static inline testing::TestCertificate main_;
  static inline testing::TestCertificate a_;
  static inline testing::TestCertificate b_;
};

TEST_F(TlsContextTest, AcceptsAMatchingPair) { EXPECT_EQ(refusal(one(main_.cert_file, main_.key_file)), "(accepted)"); }

TEST_F(TlsContextTest, RefusesAnUnreadableCertificate) {
  EXPECT_EQ(
      refusal(one(path("missing.crt"), main_.key_file)),
      "site.json: $.listeners[0].tls.cert: cannot read \"" + path("missing.crt") + "\": No such file or directory");
}

TEST_F(TlsContextTest, RefusesADirectoryAsAKey) {
  EXPECT_EQ(refusal(one(main_.cert_file, directory_.string())),
            "site.json: $.listeners[0].tls.key: cannot read \"" + directory_.string() + "\": Is a directory");
}

TEST_F(TlsContextTest, RefusesAFileWithNoCertificate) {
  EXPECT_EQ(refusal(one(main_.key_file, main_.key_file)),
            "site.json: $.listeners[0].tls.cert: \"" + main_.key_file + "\" holds no PEM certificate");
}

TEST_F(TlsContextTest, RefusesABadKey) {
  EXPECT_EQ(refusal(one(main_.cert_file, path("garbage.pem"))),
            "site.json: $.listeners[0].tls.key: \"" + path("garbage.pem") + "\" holds no PEM private key");
}

TEST_F(TlsContextTest, RefusesAnEncryptedKeyWithoutPrompting) {
  EXPECT_EQ(refusal(one(main_.cert_file, path("encrypted.key"))),
            "site.json: $.listeners[0].tls.key: \"" + path("encrypted.key") +
                "\" is encrypted; expected an unencrypted PEM private key");
}

TEST_F(TlsContextTest, RefusesAKeyThatDoesNotMatchTheCertificate) {
  EXPECT_EQ(refusal(one(main_.cert_file, a_.key_file)), "site.json: $.listeners[0].tls.key: the key in \"" +
                                                            a_.key_file + "\" does not match the certificate in \"" +
                                                            main_.cert_file + "\"");
}

TEST_F(TlsContextTest, RefusesUnknownCipherSuites) {
  TlsConfig config = one(main_.cert_file, main_.key_file);
  config.ciphersuites = "TLS_AES_128_GCM_SHA256:TLS_NOPE";
  EXPECT_EQ(refusal(config),
            "site.json: $.listeners[0].tls.ciphersuites: unknown TLS 1.3 suite \"TLS_NOPE\"; expected names "
            "separated by ':' such as \"TLS_AES_128_GCM_SHA256\"");
  config = one(main_.cert_file, main_.key_file);
  config.ciphers = "NOPE-NOTHING";
  EXPECT_EQ(refusal(config).rfind("site.json: $.listeners[0].tls.ciphers: no cipher in \"NOPE-NOTHING\"", 0), 0u)
      << refusal(config);
}

TEST_F(TlsContextTest, RefusesADamagedCertificate) {
  std::string pem = read_text(main_.cert_file);
  pem[pem.size() / 2] = pem[pem.size() / 2] == 'A' ? 'B' : 'A';  // one base64 digit changed
  pem.erase(pem.find('\n', 40) + 1, 20);                         // and a piece cut out
  std::ofstream(path("damaged.crt")) << pem;
  EXPECT_EQ(
      refusal(one(path("damaged.crt"), main_.key_file))
          .rfind("site.json: $.listeners[0].tls.cert: the certificate in \"" + path("damaged.crt") + "\" is damaged (",
                 0),
      0u)
      << refusal(one(path("damaged.crt"), main_.key_file));
}

TEST_F(TlsContextTest, NamesTheEntryOfALaterCertificate) {
  TlsConfig config = one(main_.cert_file, main_.key_file);
  config.certificates.push_back(TlsCertificateConfig{{"a.test"}, a_.cert_file, b_.key_file, "$.listeners[0].tls[1]"});
  EXPECT_EQ(refusal(config).rfind("site.json: $.listeners[0].tls[1].key: the key in", 0), 0u) << refusal(config);
}

TEST_F(TlsContextTest, ChoosesCertificatesByServerName) {
  TlsConfig config = one(main_.cert_file, main_.key_file);
  config.certificates.push_back(TlsCertificateConfig{{"a.test"}, a_.cert_file, a_.key_file, "$.t[1]"});
  config.certificates.push_back(TlsCertificateConfig{{"*.b.test"}, b_.cert_file, b_.key_file, "$.t[2]"});
  const TlsContext context(config, "site.json", std::vector<std::string>{});
  EXPECT_EQ(common_name(context.context_for("a.test")), "a.test");
  EXPECT_EQ(common_name(context.context_for("A.Test.")), "a.test");
  EXPECT_EQ(common_name(context.context_for("x.b.test")), "wild.b.test");
  EXPECT_EQ(common_name(context.context_for("b.test")), "(none)");
  EXPECT_EQ(common_name(context.context_for("y.x.b.test")), "(none)");
  EXPECT_EQ(common_name(context.context_for("main.test")), "(none)");  // the default serves every other name
  EXPECT_EQ(context.handshake_timeout(), std::chrono::milliseconds(10'000));
}

}  // namespace
}  // namespace tiffany::tls
