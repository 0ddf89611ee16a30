// Config loading: JSON text -> validated Config, with precise errors.
#include "conf/config_loader.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "conf/config_error.hpp"
#include "conf/json_node.hpp"
#include "conf/tls_config_reader.hpp"

namespace tiffany {
namespace {

bool is_method_token(const std::string& method) {
  if (method.empty()) return false;
  for (char c : method) {
    if (!((c >= 'A' && c <= 'Z') || c == '-' || c == '_')) return false;
  }
  return true;
}

std::vector<std::string> read_methods(const JsonNode& node) {
  const char* expectation = "an HTTP method such as \"GET\", \"*\" for any, or an array of methods";
  if (node.raw().is<std::string>()) {
    const std::string method = node.as_string();
    if (method == "*") return {};
    if (!is_method_token(method)) node.fail(expectation);
    return {method};
  }
  if (!node.raw().is<picojson::array>()) node.fail(expectation);
  std::vector<std::string> methods;
  for (const JsonNode& item : node.as_array()) {
    const std::string method = item.as_string();
    if (!is_method_token(method)) item.fail("an HTTP method such as \"GET\" (upper case)");
    methods.push_back(method);
  }
  if (methods.empty()) node.fail(expectation);
  return methods;
}

RouteConfig read_route(const JsonNode& node) {
  if (!node.raw().is<picojson::object>()) node.fail("a route object with \"path\" and \"handler\"");
  RouteConfig route;
  route.json_path = node.path();
  for (const auto& [key, value] : node.raw().get<picojson::object>()) {
    const JsonNode child = node.child(key, value);
    if (key == "path") {
      route.path = child.as_string();
      if (route.path.empty() || route.path.front() != '/') child.fail("a path pattern starting with '/'");
    } else if (key == "handler") {
      route.handler = child.as_nonempty_string();
    } else if (key == "method") {
      route.methods = read_methods(child);
    } else {
      route.params.emplace(key, value);  // the handler's factory validates these
    }
  }
  if (route.path.empty()) throw ConfigError(node.file(), node.path() + ".path", "missing required key");
  if (route.handler.empty()) throw ConfigError(node.file(), node.path() + ".handler", "missing required key");
  return route;
}

HttpLimitsConfig read_limits(const JsonNode& node) {
  ObjectReader reader(node, {"max_header_bytes", "max_uri_bytes", "max_body_bytes"});
  HttpLimitsConfig limits;
  if (auto value = reader.optional("max_header_bytes")) {
    limits.max_header_bytes = static_cast<std::size_t>(value->as_integer(1024, 1024 * 1024));
  }
  if (auto value = reader.optional("max_uri_bytes")) {
    limits.max_uri_bytes = static_cast<std::size_t>(value->as_integer(64, 1024 * 1024));
  }
  if (auto value = reader.optional("max_body_bytes")) {
    limits.max_body_bytes = static_cast<std::size_t>(value->as_integer(0, std::int64_t{1} << 30));
  }
  return limits;
}

ListenerConfig read_listener(const JsonNode& node, const std::string& directory) {
  ObjectReader reader(node, {"name", "address", "protocol", "routes", "limits", "tls"});
  ListenerConfig listener;
  listener.json_path = node.path();
  listener.name = reader.required("name").as_nonempty_string();

  const JsonNode address = reader.required("address");
  auto parsed = ListenAddress::parse(address.as_string());
  if (!parsed) {
    address.fail("\"HOST:PORT\" with an IPv4 address, [IPv6] address or localhost and a port from 0 to 65535");
  }
  listener.address = *parsed;

  const std::string protocol = reader.required("protocol").as_choice({"echo", "http"});
  listener.protocol = protocol == "http" ? Protocol::http : Protocol::echo;
  if (listener.protocol == Protocol::http) {
    for (const JsonNode& route : reader.required("routes").as_array()) listener.routes.push_back(read_route(route));
    if (auto limits = reader.optional("limits")) listener.limits = read_limits(*limits);
  } else {
    for (const char* http_only : {"routes", "limits"}) {
      if (auto extra = reader.optional(http_only)) {
        throw ConfigError(extra->file(), extra->path(), "only \"http\" listeners take this key");
      }
    }
  }
  if (auto tls = reader.optional("tls")) listener.tls = read_tls(*tls, directory);
  return listener;
}

}  // namespace

Config parse_config(const std::string& text, const std::string& file) {
  picojson::value document;
  const std::string error = picojson::parse(document, text);
  if (!error.empty()) {
    std::string message = error;
    while (!message.empty() && (message.back() == '\n' || message.back() == '\r')) message.pop_back();
    std::replace(message.begin(), message.end(), '\n', ' ');
    throw ConfigError(file, "$", "invalid JSON: " + message);
  }

  const JsonNode root(document, file, "$");
  ObjectReader reader(root, {"plugins", "listeners"});
  Config config;
  config.file = file;
  const auto slash = file.rfind('/');
  config.directory = slash == std::string::npos ? "." : (slash == 0 ? "/" : file.substr(0, slash));

  if (auto plugins = reader.optional("plugins")) {
    for (const JsonNode& item : plugins->as_array()) {
      std::string path = item.as_nonempty_string();
      if (path.front() != '/') path = config.directory + "/" + path;
      config.plugins.push_back(PluginConfig{std::move(path), item.path()});
    }
  }

  const JsonNode listeners = reader.required("listeners");
  const auto items = listeners.as_array();
  if (items.empty()) listeners.fail("at least one listener");
  std::set<std::string> names;
  for (const JsonNode& item : items) {
    ListenerConfig listener = read_listener(item, config.directory);
    if (!names.insert(listener.name).second) {
      throw ConfigError(file, item.path() + ".name", "duplicate listener name \"" + listener.name + "\"");
    }
    config.listeners.push_back(std::move(listener));
  }
  return config;
}

Config load_config(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(path, "$", std::string("cannot read the file: ") + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  return parse_config(text.str(), path);
}

}  // namespace tiffany
