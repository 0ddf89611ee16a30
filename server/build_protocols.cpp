// build_protocols: config listeners → protocol objects; HTTP routes → handlers.
#include "server/build_protocols.hpp"

#include <map>
#include <stdexcept>

#include "conf/config.hpp"
#include "conf/config_error.hpp"
#include "handlers/handler_registry.hpp"
#include "handlers/metrics.hpp"
#include "handlers/plugin_host.hpp"
#include "http/compression/compression_settings.hpp"
#include "server/echo/echo_protocol.hpp"
#include "server/http/http_protocol.hpp"
#include "server/transport/plain_transport.hpp"
#include "server/transport/tls/tls_transport.hpp"

namespace tiffany {
namespace {

std::string quoted_list(const std::vector<std::string>& items) {
  std::string text;
  for (const std::string& item : items) text += (text.empty() ? "\"" : ", \"") + item + "\"";
  return text;
}

std::unique_ptr<Handler> build_handler(const Config& config, const RouteConfig& route,
                                       const HandlerRegistry& registry, int worker) {
  const HandlerFactory* factory = registry.find(route.handler);
  if (factory == nullptr) {
    throw ConfigError(config.file, route.json_path + ".handler",
                      "unknown handler \"" + route.handler + "\"; expected one of " + quoted_list(registry.names()));
  }
  LoadedPlugin* plugin = registry.plugin(route.handler);
  const HandlerParams params(route.params, config.directory, plugin != nullptr ? &plugin->worker(worker) : nullptr);
  std::unique_ptr<Handler> handler;
  try {
    handler = (*factory)(params);
  } catch (const ParamError& e) {
    throw ConfigError(config.file, route.json_path + (e.key().empty() ? "" : "." + e.key()), e.what());
  } catch (const std::exception& e) {
    throw ConfigError(config.file, route.json_path, "handler \"" + route.handler + "\" refused its params: " + e.what());
  }
  if (const auto unknown = params.unknown_keys(); !unknown.empty()) {
    std::vector<std::string> expected(std::begin(HandlerParams::kRouteKeys), std::end(HandlerParams::kRouteKeys));
    expected.insert(expected.end(), params.known_keys().begin(), params.known_keys().end());
    throw ConfigError(config.file, route.json_path + "." + unknown.front(),
                      "unknown key for handler \"" + route.handler + "\"; expected one of " + quoted_list(expected));
  }
  return handler;
}

std::unique_ptr<const http::CompressionSettings> compression_settings(const CompressConfig& compress) {
  auto settings = std::make_unique<http::CompressionSettings>();
  settings->codings.clear();
  for (const std::string& name : compress.codings) settings->codings.push_back(*http::coding_from_config_name(name));
  settings->min_bytes = compress.min_bytes;
  settings->types = compress.types;
  settings->levels[static_cast<std::size_t>(http::Coding::gzip)] = compress.gzip_level;
  settings->levels[static_cast<std::size_t>(http::Coding::br)] = compress.br_level;
  settings->levels[static_cast<std::size_t>(http::Coding::zstd)] = compress.zstd_level;
  return settings;
}

std::unique_ptr<StreamProtocol> build_http(const Config& config, const ListenerConfig& listener,
                                           const HandlerRegistry& registry, AccessLog* access_log,
                                           ConnectionTracker* tracker, int worker) {
  http::HttpSite site;
  site.access_log = access_log;
  site.tracker = tracker;
  site.unmatched = &Metrics::instance().add_route(listener.name, "-");
  site.limits.max_header_bytes = listener.limits.max_header_bytes;
  site.limits.max_header_count = listener.limits.max_header_count;
  site.limits.max_uri_bytes = listener.limits.max_uri_bytes;
  site.limits.max_body_bytes = listener.limits.max_body_bytes;
  site.limits.max_linger_bytes = listener.limits.max_linger_bytes;
  const TimeoutsConfig& t = listener.timeouts;
  using std::chrono::milliseconds;
  site.timeouts = http::HttpTimeouts{.header = milliseconds(t.header_ms),
                                     .body = milliseconds(t.body_ms),
                                     .keepalive = milliseconds(t.keepalive_ms),
                                     .write = milliseconds(t.write_ms),
                                     .handler = milliseconds(t.handler_ms),
                                     .body_total = milliseconds(t.body_total_ms),
                                     .linger = milliseconds(t.linger_ms),
                                     .linger_read = milliseconds(t.linger_read_ms)};
  std::map<std::string, const http::CompressionSettings*> compression_by_origin;  // routes inheriting one share it
  for (const RouteConfig& route : listener.routes) {
    const http::CompressionSettings* compression = nullptr;
    if (route.compress.enabled) {
      const http::CompressionSettings*& shared = compression_by_origin[route.compress.json_path];
      if (shared == nullptr) {
        site.compression.push_back(compression_settings(route.compress));
        shared = site.compression.back().get();
      }
      compression = shared;
    }
    std::shared_ptr<Handler> handler = build_handler(config, route, registry, worker);
    const std::string origin = registry.origin(route.handler);
    std::string label = "handler \"" + route.handler + "\"";
    if (origin != "built-in") label += " from plugin " + origin;
    try {
      site.router.add(route.methods, route.path, std::move(handler), std::move(label),
                      &Metrics::instance().add_route(listener.name, route.path), compression);
    } catch (const std::invalid_argument& e) {
      throw ConfigError(config.file, route.json_path + ".path", e.what());
    }
  }
  return std::make_unique<HttpProtocol>(std::move(site));
}

}  // namespace

std::vector<std::unique_ptr<Transport>> build_protocols(const Config& config, const HandlerRegistry& registry,
                                                        const TlsContexts& tls_contexts, AccessLog* access_log,
                                                        ConnectionTracker* tracker, int worker) {
  std::vector<std::unique_ptr<Transport>> protocols;
  for (std::size_t i = 0; i < config.listeners.size(); ++i) {
    const ListenerConfig& listener = config.listeners[i];
    std::unique_ptr<StreamProtocol> protocol;
    if (listener.protocol == Protocol::http) {
      protocol = build_http(config, listener, registry, access_log, tracker, worker);
    } else {
      protocol = std::make_unique<EchoProtocol>(std::chrono::milliseconds(listener.timeouts.idle_ms),
                                                std::chrono::milliseconds(listener.timeouts.write_ms));
    }
    if (tls_contexts.at(i) != nullptr) {
      protocols.push_back(std::make_unique<tls::TlsTransport>(tls_contexts[i], std::move(protocol), tracker));
    } else {
      protocols.push_back(std::make_unique<PlainTransport>(std::move(protocol), tracker));
    }
  }
  return protocols;
}

}  // namespace tiffany
