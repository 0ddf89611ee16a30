// docs/config.md against the loader: every object's table lists exactly the
// keys the loader takes there (read from its "unknown key" message).
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "conf/config_error.hpp"
#include "conf/config_loader.hpp"

namespace tiffany {
namespace {

// Each "## heading" of the page and the keys of its table ("| `key` | ...").
std::map<std::string, std::set<std::string>> documented_keys() {
  std::ifstream file(std::string(TIFFANY_SOURCE_DIR) + "/docs/config.md");
  EXPECT_TRUE(file) << "docs/config.md is missing";
  std::map<std::string, std::set<std::string>> sections;
  std::string line;
  std::string heading;
  while (std::getline(file, line)) {
    if (line.rfind("## ", 0) == 0) {
      heading = line.substr(3);
      sections[heading];
    } else if (!heading.empty() && line.rfind("| `", 0) == 0) {
      const std::size_t end = line.find('`', 3);
      sections[heading].insert(line.substr(3, end - 3));
    }
  }
  return sections;
}

// The keys the loader takes where `probe` puts an unknown key "zz".
std::set<std::string> loader_keys(const std::string& probe) {
  std::string message;
  try {
    parse_config(probe, "probe.json");
  } catch (const ConfigError& e) {
    message = e.what();
  }
  const std::string marker = "unknown key; expected one of ";
  const std::size_t at = message.find(marker);
  EXPECT_NE(at, std::string::npos) << "the probe did not hit an unknown key: " << message;
  std::set<std::string> keys;
  if (at == std::string::npos) return keys;
  std::istringstream list(message.substr(at + marker.size()));
  std::string item;
  while (std::getline(list, item, ',')) {
    const std::size_t open = item.find('"');
    const std::size_t close = item.rfind('"');
    if (open != std::string::npos && close > open) keys.insert(item.substr(open + 1, close - open - 1));
  }
  return keys;
}

const std::string kHttp = R"("name": "w", "address": "127.0.0.1:0", "protocol": "http", "routes": [])";
const std::string kEcho = R"("name": "e", "address": "127.0.0.1:0", "protocol": "echo")";

struct Probe {
  std::string section;
  std::string config;
};

TEST(ConfigDoc, EveryObjectsTableListsExactlyTheKeysTheLoaderTakes) {
  const std::string tls_entry = R"("cert": "c.pem", "key": "k.pem")";
  const Probe probes[] = {
      {"Top level (`$`)", R"({"listeners": [], "zz": 1})"},
      {"`scheduler`", R"({"scheduler": {"zz": 1}, "listeners": []})"},
      {"`access_log`", R"({"access_log": {"path": "-", "zz": 1}, "listeners": []})"},
      {"`error_log`", R"({"error_log": {"zz": 1}, "listeners": []})"},
      {"`listeners[]`", "{\"listeners\": [{" + kHttp + ", \"zz\": 1}]}"},
      {"`listeners[].http2`", "{\"listeners\": [{" + kHttp + ", \"http2\": {\"zz\": 1}}]}"},
      {"`listeners[].limits` (`http`)", "{\"listeners\": [{" + kHttp + ", \"limits\": {\"zz\": 1}}]}"},
      {"`listeners[].limits` (`echo`)", "{\"listeners\": [{" + kEcho + ", \"limits\": {\"zz\": 1}}]}"},
      {"`listeners[].timeouts` (`http`, milliseconds)", "{\"listeners\": [{" + kHttp + ", \"timeouts\": {\"zz\": 1}}]}"},
      {"`listeners[].timeouts` (`echo`, milliseconds)", "{\"listeners\": [{" + kEcho + ", \"timeouts\": {\"zz\": 1}}]}"},
      {"`listeners[].compress` (and `routes[].compress`)", "{\"listeners\": [{" + kHttp + ", \"compress\": {\"zz\": 1}}]}"},
      {"`listeners[].compress.level`", "{\"listeners\": [{" + kHttp + ", \"compress\": {\"level\": {\"zz\": 1}}}]}"},
      {"`listeners[].proxy_protocol`",
       "{\"listeners\": [{" + kHttp + R"(, "proxy_protocol": {"trusted": ["127.0.0.1"], "zz": 1}}]})"},
      {"`listeners[].tls`", "{\"listeners\": [{" + kHttp + ", \"tls\": {" + tls_entry + ", \"zz\": 1}}]}"},
      {"`listeners[].tls[]` (entries after the first)",
       "{\"listeners\": [{" + kHttp + ", \"tls\": [{" + tls_entry + "}, {\"server_names\": [\"a.test\"], " + tls_entry +
           ", \"zz\": 1}]}]}"},
      {"`listeners[].routes[]`",
       "{\"listeners\": [{" + kHttp.substr(0, kHttp.size() - 2) + R"([{"path": "/", "handler": "h", "with": {}, "zz": 1}]}]})"},
      {"`listeners[].not_found` (and `method_not_allowed`)",
       "{\"listeners\": [{" + kHttp + R"(, "not_found": {"handler": "h", "zz": 1}}]})"},
      {"`upstreams.NAME`", R"({"upstreams": {"a": {"servers": ["a:1"], "zz": 1}}, "listeners": []})"},
      {"`upstreams.NAME.servers[]` (object form)", R"({"upstreams": {"a": {"servers": [{"address": "a:1", "zz": 1}]}}, "listeners": []})"},
      {"`upstreams.NAME.balance` (object form)", R"({"upstreams": {"a": {"servers": ["a:1"], "balance": {"zz": 1}}}, "listeners": []})"},
      {"`upstreams.NAME.health`", R"({"upstreams": {"a": {"servers": ["a:1"], "health": {"zz": 1}}}, "listeners": []})"},
      {"`upstreams.NAME.tls`", R"({"upstreams": {"a": {"servers": ["a:1"], "tls": {"zz": 1}}}, "listeners": []})"},
      {"`upstreams.NAME.retry_budget`", R"({"upstreams": {"a": {"servers": ["a:1"], "retry_budget": {"zz": 1}}}, "listeners": []})"},
  };
  const auto documented = documented_keys();
  std::set<std::string> probed;
  for (const Probe& probe : probes) {
    SCOPED_TRACE(probe.section);
    ASSERT_TRUE(documented.count(probe.section)) << "no such section in docs/config.md";
    EXPECT_EQ(documented.at(probe.section), loader_keys(probe.config));
    probed.insert(probe.section);
  }
  // A middleware entry's own key (the rest belong to the middleware).
  const std::string entry = "`listeners[].middleware[]` (and `routes[].middleware[]`)";
  ASSERT_TRUE(documented.count(entry));
  EXPECT_EQ(documented.at(entry), (std::set<std::string>{"use"}));
  probed.insert(entry);
  for (const auto& [section, keys] : documented) {
    // Why: each built-in middleware's settings are checked against its factory
    // by tests/unit/handlers/middleware_doc_test.cpp.
    if (section.rfind("Middleware `", 0) == 0) continue;
    // Handler sections: by the handler's own tests (the proxy's: tests/integration/proxy).
    if (section.rfind("Handler `", 0) == 0) continue;
    EXPECT_TRUE(probed.count(section)) << "docs/config.md has a section this test does not check: " << section;
  }
}

}  // namespace
}  // namespace tiffany
