// Config loading: JSON text -> validated Config, with precise errors.
#include "conf/config_loader.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "conf/compress_config_reader.hpp"
#include "conf/config_error.hpp"
#include "conf/json_node.hpp"
#include "conf/strict_json.hpp"
#include "conf/tls_config_reader.hpp"
#include "conf/upstream_config_reader.hpp"

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

// `with`: a handler's settings, an object of its own.
picojson::object read_with(const JsonNode& node) {
  if (!node.raw().is<picojson::object>()) node.fail("an object of the handler's settings");
  return node.raw().get<picojson::object>();
}

// `middleware`: an array of {"use": NAME, settings...}; the factories check the settings.
std::vector<MiddlewareConfig> read_middleware(const JsonNode& node) {
  if (!node.raw().is<picojson::array>()) node.fail("an array of middleware entries ({\"use\": \"cors\", ...})");
  std::vector<MiddlewareConfig> chain;
  for (const JsonNode& entry : node.as_array()) {
    if (!entry.raw().is<picojson::object>()) entry.fail("a middleware entry: an object with \"use\" and its settings");
    MiddlewareConfig middleware;
    middleware.json_path = entry.path();
    for (const auto& [key, value] : entry.raw().get<picojson::object>()) {
      if (key == "use") {
        middleware.use = entry.child(key, value).as_nonempty_string();
      } else {
        middleware.params.emplace(key, value);  // the middleware's factory validates these
      }
    }
    if (middleware.use.empty()) {
      throw ConfigError(entry.file(), entry.path() + ".use", "missing required key (the middleware's name, e.g. \"cors\")");
    }
    chain.push_back(std::move(middleware));
  }
  return chain;
}

RouteConfig read_route(const JsonNode& node, const CompressConfig& listener_compress,
                       std::vector<std::string>& warnings) {
  if (!node.raw().is<picojson::object>()) node.fail("a route object with \"path\" and \"handler\"");
  const picojson::object& object = node.raw().get<picojson::object>();
  // Why both forms: settings used to sit beside the route keys. That form is
  // still read (deprecated, one warning per route); with "with" present the
  // route's keys are checked strictly.
  if (object.count("with") != 0) {
    ObjectReader(node, {"method", "path", "handler", "compress", "middleware", "with"});
  }
  RouteConfig route;
  route.json_path = node.path();
  route.params_path = node.path() + ".with";
  route.compress = listener_compress;
  std::string flat_keys;
  for (const auto& [key, value] : object) {
    const JsonNode child = node.child(key, value);
    if (key == "path") {
      route.path = child.as_string();
      if (route.path.empty() || route.path.front() != '/') child.fail("a path pattern starting with '/'");
    } else if (key == "handler") {
      route.handler = child.as_nonempty_string();
    } else if (key == "method") {
      route.methods = read_methods(child);
    } else if (key == "compress") {
      route.compress = read_compress(child, listener_compress);
    } else if (key == "middleware") {
      route.middleware = read_middleware(child);
    } else if (key == "with") {
      route.params = read_with(child);
    } else {
      route.params.emplace(key, value);  // deprecated flat form: the handler's factory validates these
      flat_keys += (flat_keys.empty() ? "\"" : ", \"") + key + "\"";
    }
  }
  if (route.path.empty()) throw ConfigError(node.file(), node.path() + ".path", "missing required key");
  if (route.handler.empty()) throw ConfigError(node.file(), node.path() + ".handler", "missing required key");
  if (!flat_keys.empty()) {
    route.params_path = node.path();
    warnings.push_back(node.file() + ": " + node.path() + ": route \"" + route.path + "\" puts handler settings (" +
                       flat_keys + ") beside the route keys; this form is deprecated: move them into \"with\"");
  }
  return route;
}

// `not_found` / `method_not_allowed`: {"handler": NAME, "with": {...}}.
FallbackConfig read_fallback(const JsonNode& node) {
  ObjectReader reader(node, {"handler", "with"});
  FallbackConfig fallback;
  fallback.json_path = node.path();
  fallback.params_path = node.path() + ".with";
  fallback.handler = reader.required("handler").as_nonempty_string();
  if (auto with = reader.optional("with")) fallback.params = read_with(*with);
  return fallback;
}

// `limits`: the connection limits any listener takes, and http's request sizes.
void read_limits(const JsonNode& node, ListenerConfig& listener) {
  const bool http = listener.protocol == Protocol::http;
  if (!http && node.raw().is<picojson::object>()) {
    for (const auto& [key, value] : node.raw().get<picojson::object>()) {
      for (const char* http_only : {"max_header_bytes", "max_header_count", "max_uri_bytes", "max_body_bytes",
                                    "max_linger_bytes"}) {
        if (key == http_only) {
          throw ConfigError(node.file(), node.child(key, value).path(), "only \"http\" listeners take this key");
        }
      }
    }
  }
  const ObjectReader reader =
      http ? ObjectReader(node, {"max_connections", "max_connections_per_ip", "max_header_bytes", "max_header_count",
                                 "max_uri_bytes", "max_body_bytes", "max_linger_bytes"})
           : ObjectReader(node, {"max_connections", "max_connections_per_ip"});
  ConnectionLimitsConfig& connections = listener.connection_limits;
  if (auto value = reader.optional("max_connections")) {
    connections.max_connections = static_cast<std::size_t>(value->as_integer(1, 10'000'000));
  }
  if (auto value = reader.optional("max_connections_per_ip")) {
    connections.max_connections_per_ip = static_cast<std::size_t>(value->as_integer(1, 10'000'000));
  }
  if (!http) return;
  HttpLimitsConfig& limits = listener.limits;
  if (auto value = reader.optional("max_header_bytes")) {
    limits.max_header_bytes = static_cast<std::size_t>(value->as_integer(1024, 1024 * 1024));
  }
  if (auto value = reader.optional("max_header_count")) {
    // Why 100,000: a field takes at least 5 bytes ("a:" and CRLF, counted with
    // ": "), so the largest header section (1 MiB) holds fewer than 210,000.
    limits.max_header_count = static_cast<std::size_t>(value->as_integer(1, 100'000));
  }
  if (auto value = reader.optional("max_uri_bytes")) {
    limits.max_uri_bytes = static_cast<std::size_t>(value->as_integer(64, 1024 * 1024));
  }
  if (auto value = reader.optional("max_body_bytes")) {
    limits.max_body_bytes = static_cast<std::size_t>(value->as_integer(0, std::int64_t{1} << 30));
  }
  if (auto value = reader.optional("max_linger_bytes")) {
    limits.max_linger_bytes = static_cast<std::uint64_t>(value->as_integer(0, std::int64_t{1} << 40));
  }
}

SchedulerConfig read_scheduler(const JsonNode& node) {
  ObjectReader reader(node, {"policy", "max_resumes_between_polls", "slow_task_warning_ms", "trace_events"});
  SchedulerConfig scheduler;
  if (auto policy = reader.optional("policy")) scheduler.priority_policy = policy->as_choice({"fifo", "priority"}) == "priority";
  if (auto resumes = reader.optional("max_resumes_between_polls")) {
    scheduler.max_resumes_between_polls = static_cast<std::size_t>(resumes->as_integer(1, 1'000'000));
  }
  if (auto slow = reader.optional("slow_task_warning_ms")) scheduler.slow_task_warning_ms = slow->as_integer(0, 3'600'000);
  if (auto events = reader.optional("trace_events")) {
    scheduler.trace_events = static_cast<std::size_t>(events->as_integer(0, 10'000'000));
  }
  return scheduler;
}

TimeoutsConfig read_timeouts(const JsonNode& node, bool http) {
  constexpr std::int64_t kHour = 3'600'000;
  TimeoutsConfig timeouts;
  if (http) {
    ObjectReader reader(node, {"header_ms", "body_ms", "body_total_ms", "keepalive_ms", "write_ms", "handler_ms",
                               "linger_ms", "linger_read_ms"});
    if (auto v = reader.optional("header_ms")) timeouts.header_ms = v->as_integer(1, kHour);
    if (auto v = reader.optional("body_ms")) timeouts.body_ms = v->as_integer(1, kHour);
    if (auto v = reader.optional("body_total_ms")) timeouts.body_total_ms = v->as_integer(0, 24 * kHour);
    if (auto v = reader.optional("keepalive_ms")) timeouts.keepalive_ms = v->as_integer(1, kHour);
    if (auto v = reader.optional("write_ms")) timeouts.write_ms = v->as_integer(1, kHour);
    if (auto v = reader.optional("handler_ms")) timeouts.handler_ms = v->as_integer(0, kHour);
    if (auto v = reader.optional("linger_ms")) timeouts.linger_ms = v->as_integer(0, kHour);
    if (auto v = reader.optional("linger_read_ms")) timeouts.linger_read_ms = v->as_integer(1, kHour);
  } else {
    ObjectReader reader(node, {"idle_ms", "write_ms"});
    if (auto v = reader.optional("idle_ms")) timeouts.idle_ms = v->as_integer(1, 24 * kHour);
    if (auto v = reader.optional("write_ms")) timeouts.write_ms = v->as_integer(1, kHour);
  }
  return timeouts;
}

// `proxy_protocol`: false, or {"trusted": [CIDR, ...]} (the addresses allowed to send a PROXY header).
std::optional<ProxyProtocolConfig> read_proxy_protocol(const JsonNode& node) {
  const char* expectation = "false, or an object {\"trusted\": [\"127.0.0.1/32\", ...]} naming the proxies allowed "
                            "to send a PROXY protocol header";
  if (node.raw().is<bool>()) {
    if (node.raw().get<bool>()) node.fail(expectation);
    return std::nullopt;
  }
  if (!node.raw().is<picojson::object>()) node.fail(expectation);
  ObjectReader reader(node, {"trusted"});
  const JsonNode trusted = reader.required("trusted");
  if (!trusted.raw().is<picojson::array>()) trusted.fail("an array of address blocks such as \"10.0.0.0/8\" or \"::1/128\"");
  ProxyProtocolConfig config;
  for (const JsonNode& item : trusted.as_array()) {
    auto range = CidrRange::parse(item.as_string());
    if (!range) {
      item.fail("an address block \"IPv4/0-32\" or \"IPv6/0-128\" (or a single address) with no bits set past "
                "the prefix, such as \"10.0.0.0/8\" or \"::1/128\"");
    }
    config.trusted.push_back(std::move(*range));
  }
  if (config.trusted.empty()) trusted.fail("at least one address block (use false to turn the PROXY protocol off)");
  return config;
}

// `http2`: {"enabled": bool, and the SETTINGS the server announces}.
Http2Config read_http2(const JsonNode& node) {
  ObjectReader reader(node, {"enabled", "max_concurrent_streams", "initial_window_size", "max_header_list_size"});
  Http2Config http2;
  if (auto value = reader.optional("enabled")) http2.enabled = value->as_bool();
  if (auto value = reader.optional("max_concurrent_streams")) {
    http2.max_concurrent_streams = static_cast<std::uint32_t>(value->as_integer(1, 10'000));
  }
  if (auto value = reader.optional("initial_window_size")) {
    // Why a floor: a window of a few bytes turns every upload into a WINDOW_UPDATE storm.
    http2.initial_window_size = static_cast<std::uint32_t>(value->as_integer(1024, (std::int64_t{1} << 31) - 1));
  }
  if (auto value = reader.optional("max_header_list_size")) {
    http2.max_header_list_size = static_cast<std::uint32_t>(value->as_integer(1024, 1024 * 1024));
  }
  return http2;
}

ListenerConfig read_listener(const JsonNode& node, const std::string& directory, std::vector<std::string>& warnings) {
  ObjectReader reader(node, {"name", "address", "protocol", "share_port", "routes", "limits", "timeouts", "tls",
                             "compress", "middleware", "not_found", "method_not_allowed", "proxy_protocol", "http2"});
  ListenerConfig listener;
  listener.json_path = node.path();
  listener.name = reader.required("name").as_nonempty_string();

  const JsonNode address = reader.required("address");
  auto parsed = ListenAddress::parse(address.as_string());
  if (!parsed) {
    address.fail("\"HOST:PORT\" with an IPv4 address, [IPv6] address or localhost and a port from 0 to 65535");
  }
  listener.address = *parsed;
  if (auto share = reader.optional("share_port")) listener.share_port = share->as_bool();

  const std::string protocol = reader.required("protocol").as_choice({"echo", "http"});
  listener.protocol = protocol == "http" ? Protocol::http : Protocol::echo;
  if (auto timeouts = reader.optional("timeouts")) {
    listener.timeouts = read_timeouts(*timeouts, listener.protocol == Protocol::http);
  }
  if (listener.protocol == Protocol::http) {
    if (auto compress = reader.optional("compress")) listener.compress = read_compress(*compress, CompressConfig{});
    for (const JsonNode& route : reader.required("routes").as_array()) {
      listener.routes.push_back(read_route(route, listener.compress, warnings));
    }
    if (auto middleware = reader.optional("middleware")) listener.middleware = read_middleware(*middleware);
    if (auto fallback = reader.optional("not_found")) listener.not_found = read_fallback(*fallback);
    if (auto fallback = reader.optional("method_not_allowed")) listener.method_not_allowed = read_fallback(*fallback);
    if (auto http2 = reader.optional("http2")) listener.http2 = read_http2(*http2);
  } else {
    listener.http2.enabled = false;  // an echo listener speaks no HTTP
    for (const char* http_only : {"routes", "compress", "middleware", "not_found", "method_not_allowed", "http2"}) {
      if (auto extra = reader.optional(http_only)) {
        throw ConfigError(extra->file(), extra->path(), "only \"http\" listeners take this key");
      }
    }
  }
  if (auto limits = reader.optional("limits")) read_limits(*limits, listener);
  if (auto tls = reader.optional("tls")) listener.tls = read_tls(*tls, directory);
  if (auto proxy = reader.optional("proxy_protocol")) listener.proxy_protocol = read_proxy_protocol(*proxy);
  return listener;
}

ErrorLogConfig read_error_log(const JsonNode& node, const std::string& directory) {
  ObjectReader reader(node, {"path", "level"});
  ErrorLogConfig log;
  log.json_path = node.path();
  if (auto path = reader.optional("path")) {
    log.path = path->as_nonempty_string();
    if (log.path != "-" && log.path.front() != '/') log.path = directory + "/" + log.path;
  }
  if (auto level = reader.optional("level")) {
    log.level = level->as_choice({"debug", "info", "notice", "warn", "error", "crit"});
  }
  return log;
}

}  // namespace

Config parse_config(const std::string& text, const std::string& file) {
  const picojson::value document = parse_strict_json(text, file);

  const JsonNode root(document, file, "$");
  ObjectReader reader(root, {"backend", "workers", "max_connections", "drain_timeout_ms", "drain_delay_ms", "user",
                             "group", "pid_file", "plugins", "offload_threads", "scheduler", "access_log", "error_log",
                             "upstreams", "listeners"});
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

  if (auto backend = reader.optional("backend")) {
    const std::string name = backend->as_choice({"auto", "io_uring", "epoll"});
    config.backend = name == "io_uring" ? IoBackend::io_uring : name == "epoll" ? IoBackend::epoll : IoBackend::automatic;
  }
  if (auto workers = reader.optional("workers")) config.workers = static_cast<std::size_t>(workers->as_integer(1, 256));
  if (auto limit = reader.optional("max_connections")) {
    config.max_connections = static_cast<std::size_t>(limit->as_integer(1, 10'000'000));
  }
  if (auto drain = reader.optional("drain_timeout_ms")) config.drain_timeout_ms = drain->as_integer(0, 3'600'000);
  if (auto delay = reader.optional("drain_delay_ms")) config.drain_delay_ms = delay->as_integer(0, 3'600'000);
  if (auto user = reader.optional("user")) config.user = user->as_nonempty_string();
  if (auto group = reader.optional("group")) {
    config.group = group->as_nonempty_string();
    if (config.user.empty()) throw ConfigError(file, group->path(), "\"group\" needs \"user\" too");
  }
  if (auto pid_file = reader.optional("pid_file")) {
    config.pid_file = pid_file->as_nonempty_string();
    if (config.pid_file.front() != '/') config.pid_file = config.directory + "/" + config.pid_file;
  }
  if (auto log = reader.optional("access_log")) {
    ObjectReader fields(*log, {"path", "format"});
    config.access_log.enabled = true;
    config.access_log.json_path = log->path();
    config.access_log.path = fields.required("path").as_nonempty_string();
    if (config.access_log.path != "-" && config.access_log.path.front() != '/') {
      config.access_log.path = config.directory + "/" + config.access_log.path;
    }
    if (auto format = fields.optional("format")) config.access_log.json = format->as_choice({"common", "json"}) == "json";
  }
  if (auto log = reader.optional("error_log")) config.error_log = read_error_log(*log, config.directory);
  if (auto threads = reader.optional("offload_threads")) {
    config.offload_threads = static_cast<std::size_t>(threads->as_integer(1, 1024));
  }
  if (auto scheduler = reader.optional("scheduler")) config.scheduler = read_scheduler(*scheduler);

  if (auto upstreams = reader.optional("upstreams")) config.upstreams = read_upstreams(*upstreams, config.directory);
  const JsonNode listeners = reader.required("listeners");
  const auto items = listeners.as_array();
  if (items.empty()) listeners.fail("at least one listener");
  std::set<std::string> names;
  for (const JsonNode& item : items) {
    ListenerConfig listener = read_listener(item, config.directory, config.warnings);
    if (!names.insert(listener.name).second) {
      throw ConfigError(file, item.path() + ".name", "duplicate listener name \"" + listener.name + "\"");
    }
    config.listeners.push_back(std::move(listener));
  }
  check_proxy_routes(config);
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
