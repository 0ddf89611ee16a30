// Reading the top-level `upstreams` section: named server groups for `proxy` routes.
#include "conf/upstream_config_reader.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <charconv>

#include "conf/config_error.hpp"

namespace tiffany {
namespace {

constexpr std::int64_t kHour = 3'600'000;

bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
}

// A DNS name: labels of letters, digits and '-', separated by single dots.
bool is_hostname(std::string_view host) {
  if (host.empty() || host.size() > 253 || host.front() == '.' || host.back() == '.') return false;
  std::size_t label = 0;
  for (char c : host) {
    if (c == '.') {
      if (label == 0) return false;
      label = 0;
      continue;
    }
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-';
    if (!ok || ++label > 63) return false;
  }
  return true;
}

// "HOST:PORT" with an IPv4 literal, [IPv6] literal or DNS name and a port 1..65535.
bool parse_server_address(std::string_view text, UpstreamServerConfig& server) {
  std::string_view host;
  std::string_view port;
  if (!text.empty() && text.front() == '[') {
    const auto close = text.find(']');
    if (close == std::string_view::npos || close + 1 >= text.size() || text[close + 1] != ':') return false;
    host = text.substr(1, close - 1);
    port = text.substr(close + 2);
    in6_addr address6{};
    if (inet_pton(AF_INET6, std::string(host).c_str(), &address6) != 1) return false;
    server.ipv6_literal = true;
  } else {
    const auto colon = text.rfind(':');
    if (colon == std::string_view::npos) return false;
    host = text.substr(0, colon);
    port = text.substr(colon + 1);
    if (!is_hostname(host)) return false;
    // Why: all-digit-and-dot hosts must be real IPv4 literals ("1.2.3" or
    // "300.1.1.1" is a typo, not a name to resolve).
    if (host.find_first_not_of("0123456789.") == std::string_view::npos) {
      in_addr address4{};
      if (inet_pton(AF_INET, std::string(host).c_str(), &address4) != 1) return false;
    }
  }
  unsigned value = 0;
  const auto [end, error] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (port.empty() || error != std::errc() || end != port.data() + port.size() || value < 1 || value > 65535) return false;
  server.host = std::string(host);
  server.port = static_cast<std::uint16_t>(value);
  return true;
}

UpstreamServerConfig read_server(const JsonNode& node) {
  const char* expectation =
      "\"HOST:PORT\" with an IPv4 address, [IPv6] address or DNS name and a port from 1 to 65535";
  UpstreamServerConfig server;
  server.json_path = node.path();
  if (node.raw().is<std::string>()) {
    if (!parse_server_address(node.as_string(), server)) node.fail(expectation);
    return server;
  }
  if (!node.raw().is<picojson::object>()) node.fail(std::string(expectation) + ", or an object with \"address\"");
  ObjectReader reader(node, {"address", "weight", "backup"});
  const JsonNode address = reader.required("address");
  if (!parse_server_address(address.as_string(), server)) address.fail(expectation);
  if (auto weight = reader.optional("weight")) server.weight = static_cast<int>(weight->as_integer(1, 1000));
  if (auto backup = reader.optional("backup")) server.backup = backup->as_bool();
  return server;
}

void read_balance(const JsonNode& node, UpstreamConfig& upstream) {
  if (node.raw().is<std::string>()) {
    const std::string name = node.as_choice({"round_robin", "least_conn"});
    upstream.balance = name == "least_conn" ? UpstreamBalance::least_conn : UpstreamBalance::round_robin;
    return;
  }
  if (!node.raw().is<picojson::object>()) {
    node.fail("\"round_robin\", \"least_conn\" or {\"hash\": \"client_address\" | \"path\" | \"header:NAME\"}");
  }
  ObjectReader reader(node, {"hash"});
  const JsonNode key = reader.required("hash");
  const std::string text = key.raw().is<std::string>() ? key.as_string() : std::string();
  upstream.balance = UpstreamBalance::hash;
  if (text == "client_address") {
    upstream.hash_key = UpstreamHashKey::client_address;
  } else if (text == "path") {
    upstream.hash_key = UpstreamHashKey::path;
  } else if (text.rfind("header:", 0) == 0 && text.size() > 7 &&
             std::all_of(text.begin() + 7, text.end(), [](char c) { return is_name_char(c) && c != '.'; })) {
    upstream.hash_key = UpstreamHashKey::header;
    upstream.hash_header = text.substr(7);
  } else {
    key.fail("\"client_address\", \"path\" or \"header:NAME\" (NAME a header field name)");
  }
}

UpstreamHealthConfig read_health(const JsonNode& node) {
  ObjectReader reader(node, {"path", "interval_ms", "timeout_ms", "expect_status", "rise", "fall"});
  UpstreamHealthConfig health;
  if (auto path = reader.optional("path")) {
    health.path = path->as_string();
    if (health.path.empty() || health.path.front() != '/') path->fail("a request target starting with '/'");
  }
  if (auto v = reader.optional("interval_ms")) health.interval_ms = v->as_integer(1, kHour);
  if (auto v = reader.optional("timeout_ms")) health.timeout_ms = v->as_integer(1, kHour);
  if (auto v = reader.optional("rise")) health.rise = static_cast<int>(v->as_integer(1, 1000));
  if (auto v = reader.optional("fall")) health.fall = static_cast<int>(v->as_integer(1, 1000));
  if (auto expect = reader.optional("expect_status")) {
    const char* expectation = "[MIN, MAX]: two status codes from 100 to 599, MIN <= MAX";
    if (!expect->raw().is<picojson::array>()) expect->fail(expectation);
    const auto bounds = expect->as_array();
    if (bounds.size() != 2) expect->fail(expectation);
    health.expect_status_min = static_cast<int>(bounds[0].as_integer(100, 599));
    health.expect_status_max = static_cast<int>(bounds[1].as_integer(100, 599));
    if (health.expect_status_min > health.expect_status_max) expect->fail(expectation);
  }
  return health;
}

UpstreamTlsConfig read_upstream_tls(const JsonNode& node, const std::string& directory) {
  ObjectReader reader(node, {"verify", "ca_file", "server_name"});
  UpstreamTlsConfig tls;
  if (auto v = reader.optional("verify")) tls.verify = v->as_bool();
  if (auto v = reader.optional("ca_file")) {
    tls.ca_file = v->as_nonempty_string();
    if (tls.ca_file.front() != '/') tls.ca_file = directory + "/" + tls.ca_file;
  }
  if (auto v = reader.optional("server_name")) {
    tls.server_name = v->as_nonempty_string();
    if (!is_hostname(tls.server_name)) v->fail("a DNS name");
  }
  return tls;
}

UpstreamConfig read_upstream(const std::string& name, const JsonNode& node, const std::string& directory) {
  if (!node.raw().is<picojson::object>()) node.fail("an upstream object with \"servers\"");
  ObjectReader reader(node, {"servers", "balance", "keepalive", "max_connections", "idle_timeout_ms", "max_fails",
                             "fail_timeout_ms", "health", "connect_timeout_ms", "tls", "retry_budget"});
  UpstreamConfig upstream;
  upstream.name = name;
  upstream.json_path = node.path();
  const JsonNode servers = reader.required("servers");
  for (const JsonNode& item : servers.as_array()) upstream.servers.push_back(read_server(item));
  if (upstream.servers.empty()) servers.fail("at least one server");
  if (std::all_of(upstream.servers.begin(), upstream.servers.end(), [](const auto& s) { return s.backup; })) {
    servers.fail("at least one server that is not a backup");
  }
  if (auto balance = reader.optional("balance")) read_balance(*balance, upstream);
  if (auto v = reader.optional("keepalive")) upstream.keepalive = static_cast<std::size_t>(v->as_integer(0, 100'000));
  if (auto v = reader.optional("max_connections")) {
    upstream.max_connections = static_cast<std::size_t>(v->as_integer(0, 10'000'000));
  }
  if (auto v = reader.optional("idle_timeout_ms")) upstream.idle_timeout_ms = v->as_integer(1, 24 * kHour);
  if (auto v = reader.optional("connect_timeout_ms")) upstream.connect_timeout_ms = v->as_integer(1, kHour);
  if (auto v = reader.optional("max_fails")) upstream.max_fails = static_cast<int>(v->as_integer(0, 1000));
  if (auto v = reader.optional("fail_timeout_ms")) upstream.fail_timeout_ms = v->as_integer(1, 24 * kHour);
  if (auto health = reader.optional("health")) upstream.health = read_health(*health);
  if (auto tls = reader.optional("tls")) upstream.tls = read_upstream_tls(*tls, directory);
  if (auto budget = reader.optional("retry_budget")) {
    ObjectReader fields(*budget, {"percent", "min_concurrent"});
    if (auto v = fields.optional("percent")) upstream.retry_budget.percent = static_cast<int>(v->as_integer(0, 100));
    if (auto v = fields.optional("min_concurrent")) {
      upstream.retry_budget.min_concurrent = static_cast<int>(v->as_integer(0, 100'000));
    }
  }
  return upstream;
}

// The upstream a proxy route names, and where: `with.upstream` or the flat `upstream`.
void check_route(const RouteConfig& route, const Config& config) {
  const std::string path = route.params_path + ".upstream";
  const auto found = route.params.find("upstream");
  std::string defined;
  for (const UpstreamConfig& upstream : config.upstreams) defined += (defined.empty() ? "" : ", ") + upstream.name;
  if (defined.empty()) defined = "none (add a top-level \"upstreams\" section)";
  if (found == route.params.end() || !found->second.is<std::string>()) {
    throw ConfigError(config.file, path, "a \"proxy\" route needs \"upstream\": the name of an upstream; defined: " + defined);
  }
  const std::string& name = found->second.get<std::string>();
  for (const UpstreamConfig& upstream : config.upstreams) {
    if (upstream.name == name) return;
  }
  throw ConfigError(config.file, path, "no upstream named \"" + name + "\"; defined: " + defined);
}

}  // namespace

std::vector<UpstreamConfig> read_upstreams(const JsonNode& node, const std::string& directory) {
  if (!node.raw().is<picojson::object>()) node.fail("an object of upstream name -> {\"servers\": [...], ...}");
  std::vector<UpstreamConfig> upstreams;
  // Why no duplicate check here: strict_json already refuses a key given twice.
  for (const auto& [name, value] : node.raw().get<picojson::object>()) {
    const JsonNode child = node.child(name, value);
    if (name.empty() || !std::all_of(name.begin(), name.end(), is_name_char)) {
      throw ConfigError(node.file(), child.path(), "an upstream name is letters, digits, '_', '-' and '.'");
    }
    upstreams.push_back(read_upstream(name, child, directory));
  }
  return upstreams;  // picojson::object is a std::map: already sorted by name
}

void check_proxy_routes(const Config& config) {
  for (const ListenerConfig& listener : config.listeners) {
    for (const RouteConfig& route : listener.routes) {
      if (route.handler == "proxy") check_route(route, config);
    }
  }
}

}  // namespace tiffany
