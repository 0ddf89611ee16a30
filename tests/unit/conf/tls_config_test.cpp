// The `tls` key of a listener: both shapes, defaults, paths, and one precise
// message per kind of mistake. (Certificate files are checked at start-up.)
#include <gtest/gtest.h>

#include <string>

#include "conf/config_error.hpp"
#include "conf/config_loader.hpp"

namespace tiffany {
namespace {

using namespace std::chrono_literals;

// A config with one echo listener whose `tls` value is `tls_json`.
std::string with_tls(const std::string& tls_json) {
  return R"({"listeners": [{"name": "e", "address": "127.0.0.1:1", "protocol": "echo", "tls": )" + tls_json + "}]}";
}

std::string error_for(const std::string& tls_json) {
  try {
    parse_config(with_tls(tls_json), "/srv/site/test.json");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(TlsConfig, AListenerWithoutTlsIsPlain) {
  const Config config =
      parse_config(R"({"listeners": [{"name": "e", "address": "127.0.0.1:1", "protocol": "echo"}]})", "t.json");
  EXPECT_FALSE(config.listeners[0].tls.has_value());
}

TEST(TlsConfig, OneCertificateGetsSafeDefaultsAndPathsRelativeToTheConfig) {
  const Config config =
      parse_config(with_tls(R"({"cert": "tls/site.crt", "key": "/keys/site.key"})"), "/srv/site/test.json");
  ASSERT_TRUE(config.listeners[0].tls.has_value());
  const TlsConfig& tls = *config.listeners[0].tls;
  ASSERT_EQ(tls.certificates.size(), 1u);
  EXPECT_EQ(tls.certificates[0].cert_file, "/srv/site/tls/site.crt");
  EXPECT_EQ(tls.certificates[0].key_file, "/keys/site.key");
  EXPECT_TRUE(tls.certificates[0].server_names.empty());
  EXPECT_EQ(tls.certificates[0].json_path, "$.listeners[0].tls");
  EXPECT_EQ(tls.json_path, "$.listeners[0].tls");
  EXPECT_EQ(tls.min_version, TlsVersion::tls1_2);
  EXPECT_EQ(tls.ciphers, kDefaultTlsCiphers);
  EXPECT_EQ(tls.ciphersuites, kDefaultTlsCiphersuites);
  EXPECT_TRUE(tls.session_tickets);
  EXPECT_EQ(tls.handshake_timeout, 10s);
}

TEST(TlsConfig, SettingsAreRead) {
  const Config config = parse_config(with_tls(R"({"cert": "c", "key": "k", "min_version": "1.3",
      "ciphers": "ECDHE-RSA-AES256-GCM-SHA384", "ciphersuites": "TLS_AES_256_GCM_SHA384",
      "session_tickets": false, "handshake_timeout_ms": 250})"),
                                     "t.json");
  const TlsConfig& tls = *config.listeners[0].tls;
  EXPECT_EQ(tls.certificates[0].cert_file, "./c");
  EXPECT_EQ(tls.min_version, TlsVersion::tls1_3);
  EXPECT_EQ(tls.ciphers, "ECDHE-RSA-AES256-GCM-SHA384");
  EXPECT_EQ(tls.ciphersuites, "TLS_AES_256_GCM_SHA384");
  EXPECT_FALSE(tls.session_tickets);
  EXPECT_EQ(tls.handshake_timeout, 250ms);
}

TEST(TlsConfig, SeveralCertificatesServeTheirNamesAndTheFirstIsTheDefault) {
  const Config config = parse_config(with_tls(R"([
      {"cert": "default.crt", "key": "default.key", "min_version": "1.3"},
      {"server_names": ["A.test", "*.b.test"], "cert": "a.crt", "key": "a.key"}])"),
                                     "/srv/test.json");
  const TlsConfig& tls = *config.listeners[0].tls;
  ASSERT_EQ(tls.certificates.size(), 2u);
  EXPECT_EQ(tls.certificates[0].cert_file, "/srv/default.crt");
  EXPECT_EQ(tls.certificates[1].server_names, (std::vector<std::string>{"a.test", "*.b.test"}));
  EXPECT_EQ(tls.certificates[1].json_path, "$.listeners[0].tls[1]");
  EXPECT_EQ(tls.json_path, "$.listeners[0].tls[0]");
  EXPECT_EQ(tls.min_version, TlsVersion::tls1_3);
}

TEST(TlsConfig, HttpListenersTakeTlsToo) {
  const Config config = parse_config(R"({"listeners": [{"name": "w", "address": "127.0.0.1:1", "protocol": "http",
      "routes": [], "tls": {"cert": "c", "key": "k"}}]})",
                                     "t.json");
  EXPECT_TRUE(config.listeners[0].tls.has_value());
}

struct Case {
  const char* name;
  const char* tls_json;
  const char* message;
};

void PrintTo(const Case& c, std::ostream* out) { *out << c.name; }

class TlsConfigErrors : public ::testing::TestWithParam<Case> {};

TEST_P(TlsConfigErrors, NameTheFilePathAndExpectation) {
  EXPECT_EQ(error_for(GetParam().tls_json), GetParam().message);
}

INSTANTIATE_TEST_SUITE_P(
    TlsConfig, TlsConfigErrors,
    ::testing::Values(
        Case{"NotAnObjectOrArray", R"(true)",
             "/srv/site/test.json: $.listeners[0].tls: expected an object {\"cert\", \"key\"} or an array of "
             "{\"server_names\", \"cert\", \"key\"}, got true"},
        Case{"NoCertificates", R"([])",
             "/srv/site/test.json: $.listeners[0].tls: expected at least one certificate, "
             "got an array"},
        Case{"MissingCert", R"({"key": "k"})", "/srv/site/test.json: $.listeners[0].tls.cert: missing required key"},
        Case{"MissingKey", R"({"cert": "c"})", "/srv/site/test.json: $.listeners[0].tls.key: missing required key"},
        Case{"EmptyCertPath", R"({"cert": "", "key": "k"})",
             "/srv/site/test.json: $.listeners[0].tls.cert: expected a non-empty string, got \"\""},
        Case{"UnknownKey", R"({"cert": "c", "key": "k", "certificate": "x"})",
             "/srv/site/test.json: $.listeners[0].tls.certificate: unknown key; expected one of \"server_names\", "
             "\"cert\", \"key\", \"min_version\", \"ciphers\", \"ciphersuites\", \"session_tickets\", "
             "\"handshake_timeout_ms\""},
        Case{"BadVersion", R"({"cert": "c", "key": "k", "min_version": "1.1"})",
             "/srv/site/test.json: $.listeners[0].tls.min_version: expected one of \"1.2\", \"1.3\", got \"1.1\""},
        Case{"VersionAsNumber", R"({"cert": "c", "key": "k", "min_version": 1.3})",
             "/srv/site/test.json: $.listeners[0].tls.min_version: expected one of \"1.2\", \"1.3\", got 1.3"},
        Case{"TicketsNotABool", R"({"cert": "c", "key": "k", "session_tickets": "yes"})",
             "/srv/site/test.json: $.listeners[0].tls.session_tickets: expected true or false, got \"yes\""},
        Case{"TimeoutOutOfRange", R"({"cert": "c", "key": "k", "handshake_timeout_ms": 0})",
             "/srv/site/test.json: $.listeners[0].tls.handshake_timeout_ms: expected an integer from 10 to 600000, "
             "got 0"},
        Case{"EmptyCiphers", R"({"cert": "c", "key": "k", "ciphers": ""})",
             "/srv/site/test.json: $.listeners[0].tls.ciphers: expected a non-empty string, got \"\""},
        Case{"BadServerName", R"({"cert": "c", "key": "k", "server_names": ["a..test"]})",
             "/srv/site/test.json: $.listeners[0].tls.server_names[0]: expected a host name such as "
             "\"example.com\" or \"*.example.com\", got \"a..test\""},
        Case{"WildcardInTheMiddle", R"({"cert": "c", "key": "k", "server_names": ["a.*.test"]})",
             "/srv/site/test.json: $.listeners[0].tls.server_names[0]: expected a host name such as "
             "\"example.com\" or \"*.example.com\", got \"a.*.test\""},
        Case{"DuplicateServerName", R"([{"cert": "c", "key": "k", "server_names": ["a.test"]},
                                        {"cert": "c2", "key": "k2", "server_names": ["A.TEST"]}])",
             "/srv/site/test.json: $.listeners[0].tls[1].server_names[0]: server name \"a.test\" is already served "
             "by another entry"},
        Case{"LaterEntryWithoutNames", R"([{"cert": "c", "key": "k"}, {"cert": "c2", "key": "k2"}])",
             "/srv/site/test.json: $.listeners[0].tls[1].server_names: missing required key (only the first entry "
             "may serve no name)"},
        Case{"LaterEntryWithEmptyNames", R"([{"cert": "c", "key": "k"}, {"cert": "c2", "key": "k2",
                                             "server_names": []}])",
             "/srv/site/test.json: $.listeners[0].tls[1].server_names: expected at least one host name (only the "
             "first entry may serve no name), got an array"},
        Case{"SettingInALaterEntry", R"([{"cert": "c", "key": "k"},
                                         {"cert": "c2", "key": "k2", "server_names": ["b.test"], "min_version": "1.3"}])",
             "/srv/site/test.json: $.listeners[0].tls[1].min_version: listener-wide TLS settings go in the first "
             "(default) entry"},
        Case{"UnknownKeyInALaterEntry", R"([{"cert": "c", "key": "k"},
                                            {"cert": "c2", "key": "k2", "server_name": ["b.test"]}])",
             "/srv/site/test.json: $.listeners[0].tls[1].server_name: unknown key; expected one of "
             "\"server_names\", \"cert\", \"key\""}),
    [](const ::testing::TestParamInfo<Case>& param_info) { return std::string(param_info.param.name); });

}  // namespace
}  // namespace tiffany
