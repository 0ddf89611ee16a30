// Test helper: self-signed certificates made in-process with OpenSSL (no CLI).
#pragma once

#include <string>
#include <vector>

namespace tiffany::testing {

/// PEM files of one self-signed certificate and its key.
struct TestCertificate {
  std::string cert_file;
  std::string key_file;
};

/// Writes `<directory>/<stem>.crt` and `.key`: a P-256 key and a certificate
/// for `common_name` whose subjectAltName lists `dns_names`, valid for a day.
/// Aborts the test (throws) if OpenSSL fails.
TestCertificate write_test_certificate(const std::string& directory, const std::string& stem,
                                       const std::string& common_name, const std::vector<std::string>& dns_names);

}  // namespace tiffany::testing
