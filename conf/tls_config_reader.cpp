// `tls` validation: shape, paths, server names, versions and settings.
#include "conf/tls_config_reader.hpp"

#include <algorithm>
#include <set>
#include <string_view>

#include "conf/config_error.hpp"

namespace tiffany {
namespace {

constexpr std::string_view kSettingKeys[] = {"min_version", "ciphers", "ciphersuites", "session_tickets",
                                             "handshake_timeout_ms"};

bool is_setting_key(std::string_view key) {
  return std::find(std::begin(kSettingKeys), std::end(kSettingKeys), key) != std::end(kSettingKeys);
}

// The object that holds the default certificate and the listener-wide settings.
ObjectReader default_entry_reader(const JsonNode& node) {
  return ObjectReader(node, {"server_names", "cert", "key", "min_version", "ciphers", "ciphersuites", "session_tickets",
                             "handshake_timeout_ms"});
}

bool is_label_char(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; }

// "example.com", "a.b.test", "*.b.test": lower-case DNS labels, an optional
// leading "*." wildcard, no trailing dot.
bool is_server_name(std::string_view name) {
  if (name.starts_with("*.")) name.remove_prefix(2);
  if (name.empty() || name.size() > 253) return false;
  std::size_t label = 0;
  for (char c : name) {
    if (c == '.') {
      if (label == 0) return false;
      label = 0;
    } else if (!is_label_char(c) || ++label > 63) {
      return false;
    }
  }
  return label > 0;
}

std::string resolve(const std::string& path, const std::string& directory) {
  return path.front() == '/' ? path : directory + "/" + path;
}

std::vector<std::string> read_server_names(const JsonNode& node, std::set<std::string>& taken) {
  std::vector<std::string> names;
  for (const JsonNode& item : node.as_array()) {
    std::string name = item.as_nonempty_string();
    std::transform(name.begin(), name.end(), name.begin(),
                   [](char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; });
    if (!is_server_name(name)) item.fail("a host name such as \"example.com\" or \"*.example.com\"");
    if (!taken.insert(name).second) {
      throw ConfigError(item.file(), item.path(), "server name \"" + name + "\" is already served by another entry");
    }
    names.push_back(std::move(name));
  }
  return names;
}

TlsCertificateConfig read_certificate(const ObjectReader& reader, const std::string& directory,
                                      std::set<std::string>& taken) {
  TlsCertificateConfig certificate;
  certificate.json_path = reader.node().path();
  if (auto names = reader.optional("server_names")) certificate.server_names = read_server_names(*names, taken);
  certificate.cert_file = resolve(reader.required("cert").as_nonempty_string(), directory);
  certificate.key_file = resolve(reader.required("key").as_nonempty_string(), directory);
  return certificate;
}

void read_settings(const ObjectReader& reader, TlsConfig& tls) {
  tls.json_path = reader.node().path();
  if (auto version = reader.optional("min_version")) {
    tls.min_version = version->as_choice({"1.2", "1.3"}) == "1.3" ? TlsVersion::tls1_3 : TlsVersion::tls1_2;
  }
  if (auto ciphers = reader.optional("ciphers")) tls.ciphers = ciphers->as_nonempty_string();
  if (auto suites = reader.optional("ciphersuites")) tls.ciphersuites = suites->as_nonempty_string();
  if (auto tickets = reader.optional("session_tickets")) tls.session_tickets = tickets->as_bool();
  if (auto timeout = reader.optional("handshake_timeout_ms")) {
    tls.handshake_timeout = std::chrono::milliseconds(timeout->as_integer(10, 600'000));
  }
}

}  // namespace

TlsConfig read_tls(const JsonNode& node, const std::string& directory) {
  TlsConfig tls;
  std::set<std::string> taken;
  if (node.raw().is<picojson::object>()) {
    const ObjectReader reader = default_entry_reader(node);
    tls.certificates.push_back(read_certificate(reader, directory, taken));
    read_settings(reader, tls);
    return tls;
  }
  if (!node.raw().is<picojson::array>()) {
    node.fail("an object {\"cert\", \"key\"} or an array of {\"server_names\", \"cert\", \"key\"}");
  }
  const std::vector<JsonNode> entries = node.as_array();
  if (entries.empty()) node.fail("at least one certificate");
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const JsonNode& entry = entries[i];
    if (i == 0) {
      const ObjectReader reader = default_entry_reader(entry);
      tls.certificates.push_back(read_certificate(reader, directory, taken));
      read_settings(reader, tls);
      continue;
    }
    if (entry.raw().is<picojson::object>()) {
      for (const auto& [key, value] : entry.raw().get<picojson::object>()) {
        if (is_setting_key(key)) {
          throw ConfigError(entry.file(), entry.child(key, value).path(),
                            "listener-wide TLS settings go in the first (default) entry");
        }
      }
    }
    const ObjectReader reader(entry, {"server_names", "cert", "key"});
    if (!reader.optional("server_names")) {
      throw ConfigError(entry.file(), entry.path() + ".server_names",
                        "missing required key (only the first entry may serve no name)");
    }
    tls.certificates.push_back(read_certificate(reader, directory, taken));
    if (tls.certificates.back().server_names.empty()) {
      reader.required("server_names").fail("at least one host name (only the first entry may serve no name)");
    }
  }
  return tls;
}

}  // namespace tiffany
