// build_protocols: config listeners → protocol objects; HTTP routes → handlers.
#include "server/build_protocols.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <stdexcept>

#include <tiffany/handlers/handler_registry.hpp>
#include <tiffany/handlers/plugin_context.hpp>

#include "conf/config.hpp"
#include "conf/config_error.hpp"
#include "handlers/engine/metrics.hpp"
#include "handlers/engine/middleware_chain.hpp"
#include "handlers/engine/plugin_host.hpp"
#include "http/engine/compression/compression_settings.hpp"
#include "server/echo/echo_protocol.hpp"
#include "server/http/http_protocol.hpp"
#include "server/transport/plain_transport.hpp"
#include "server/transport/proxy/proxy_protocol_transport.hpp"
#include "server/transport/tls/tls_transport.hpp"

namespace tiffany {
namespace {

std::string quoted_list(const std::vector<std::string>& items) {
  std::string text;
  for (const std::string& item : items) text += (text.empty() ? "\"" : ", \"") + item + "\"";
  return text;
}

// Calls a handler's or a middleware's factory with `params` (found at
// `params_path`); its ParamError and unknown keys become config errors there.
// `flat`: the settings sit beside these keys (a middleware entry's "use", or
// the route keys in the deprecated flat route form). The factory gets
// `plugin`'s context on the worker `builtins` is for, or `builtins` for a built-in.
template <class Made, class Factory>
std::unique_ptr<Made> call_factory(const Config& config, const Factory& factory, const std::string& kind,
                                   const std::string& name, LoadedPlugin* plugin, const picojson::object& object,
                                   const std::string& params_path, std::vector<std::string> flat,
                                   WorkerContext& builtins) {
  // Why: only the deprecated flat route form shares its object with the route keys.
  const bool beside_route_keys = kind == "handler" && !flat.empty();
  WorkerContext& context = plugin != nullptr ? plugin->worker(builtins.index()) : builtins;
  const HandlerParams params(object, config.directory, &context, beside_route_keys);
  std::unique_ptr<Made> made;
  try {
    made = factory(params);
  } catch (const ParamError& e) {
    throw ConfigError(config.file, params_path + (e.key().empty() ? "" : "." + e.key()), e.what());
  } catch (const std::exception& e) {
    throw ConfigError(config.file, params_path, kind + " \"" + name + "\" refused its settings: " + e.what());
  }
  if (made == nullptr) throw ConfigError(config.file, params_path, kind + " \"" + name + "\" made nothing");
  for (const std::string& key : params.unknown_keys()) {
    if (std::find(flat.begin(), flat.end(), key) != flat.end()) continue;  // read by the loader, not the factory
    flat.insert(flat.end(), params.known_keys().begin(), params.known_keys().end());
    throw ConfigError(config.file, params_path + "." + key,
                      "unknown key for " + kind + " \"" + name + "\"; expected one of " + quoted_list(flat));
  }
  return made;
}

std::unique_ptr<Handler> build_handler(const Config& config, const std::string& name, const picojson::object& params,
                                       const std::string& name_path, const std::string& params_path, bool flat,
                                       const HandlerRegistry& registry, WorkerContext& builtins) {
  const HandlerFactory* factory = registry.find(name);
  if (factory == nullptr) {
    throw ConfigError(config.file, name_path,
                      "unknown handler \"" + name + "\"; expected one of " + quoted_list(registry.names()));
  }
  std::vector<std::string> route_keys;
  if (flat) route_keys.assign(std::begin(HandlerParams::kRouteKeys), std::end(HandlerParams::kRouteKeys));
  return call_factory<Handler>(config, *factory, "handler", name, registry.plugin(name), params, params_path,
                               std::move(route_keys), builtins);
}

std::vector<std::unique_ptr<Middleware>> build_middleware(const Config& config,
                                                          const std::vector<MiddlewareConfig>& entries,
                                                          const HandlerRegistry& handlers, WorkerContext& builtins) {
  const MiddlewareRegistry& registry = handlers.middleware();
  std::vector<std::unique_ptr<Middleware>> chain;
  for (const MiddlewareConfig& entry : entries) {
    const MiddlewareFactory* factory = registry.find(entry.use);
    if (factory == nullptr) {
      throw ConfigError(config.file, entry.json_path + ".use",
                        "unknown middleware \"" + entry.use + "\"; expected one of " + quoted_list(registry.names()));
    }
    chain.push_back(call_factory<Middleware>(config, *factory, "middleware", entry.use, registry.plugin(entry.use),
                                             entry.params, entry.json_path, {"use"}, builtins));
  }
  return chain;
}

std::shared_ptr<Handler> build_fallback(const Config& config, const std::optional<FallbackConfig>& fallback,
                                        const HandlerRegistry& registry, WorkerContext& builtins) {
  if (!fallback) return nullptr;
  return build_handler(config, fallback->handler, fallback->params, fallback->json_path + ".handler",
                       fallback->params_path, false, registry, builtins);
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
                                           ConnectionTracker* tracker, WorkerContext& builtins) {
  http::HttpSite site;
  site.access_log = access_log;
  site.tracker = tracker;
  site.unmatched = &Metrics::instance().add_route(listener.name, "-");
  site.limits.max_header_bytes = listener.limits.max_header_bytes;
  site.limits.max_header_count = listener.limits.max_header_count;
  site.limits.max_uri_bytes = listener.limits.max_uri_bytes;
  site.limits.max_body_bytes = listener.limits.max_body_bytes;
  site.limits.max_linger_bytes = listener.limits.max_linger_bytes;
  site.http2 = http::Http2Settings{.enabled = listener.http2.enabled,
                                   .max_concurrent_streams = listener.http2.max_concurrent_streams,
                                   .initial_window_size = listener.http2.initial_window_size,
                                   .max_header_list_size = listener.http2.max_header_list_size};
  if (listener.http2.enabled) site.http2_metrics = &Metrics::instance().add_http2(listener.name);
  site.websocket_metrics = &Metrics::instance().add_websocket(listener.name);
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
    std::shared_ptr<Handler> handler =
        build_handler(config, route.handler, route.params, route.json_path + ".handler", route.params_path,
                      route.params_path == route.json_path, registry, builtins);
    if (!route.middleware.empty()) {
      // Why only here: a route without middleware is routed straight to its handler, no step between.
      handler = std::make_shared<MiddlewareChain>(build_middleware(config, route.middleware, registry, builtins),
                                                  std::move(handler));
    }
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
  if (!listener.middleware.empty()) {
    site.middleware = std::make_shared<const MiddlewareChain>(
        build_middleware(config, listener.middleware, registry, builtins), nullptr);
  }
  site.not_found = build_fallback(config, listener.not_found, registry, builtins);
  site.method_not_allowed = build_fallback(config, listener.method_not_allowed, registry, builtins);
  return std::make_unique<HttpProtocol>(std::move(site));
}

}  // namespace

std::vector<std::unique_ptr<Transport>> build_protocols(const Config& config, const HandlerRegistry& registry,
                                                        WorkerContext& builtins, const TlsContexts& tls_contexts,
                                                        AccessLog* access_log, ConnectionTracker* tracker) {
  std::vector<std::unique_ptr<Transport>> protocols;
  for (std::size_t i = 0; i < config.listeners.size(); ++i) {
    const ListenerConfig& listener = config.listeners[i];
    std::unique_ptr<StreamProtocol> protocol;
    if (listener.protocol == Protocol::http) {
      protocol = build_http(config, listener, registry, access_log, tracker, builtins);
    } else {
      protocol = std::make_unique<EchoProtocol>(std::chrono::milliseconds(listener.timeouts.idle_ms),
                                                std::chrono::milliseconds(listener.timeouts.write_ms));
    }
    std::unique_ptr<Transport> transport;
    if (tls_contexts.at(i) != nullptr) {
      transport = std::make_unique<tls::TlsTransport>(tls_contexts[i], std::move(protocol), tracker);
    } else {
      transport = std::make_unique<PlainTransport>(std::move(protocol), tracker);
    }
    if (listener.proxy_protocol) {
      // Why these timeouts: the header is the first thing a connection
      // sends, so it gets what the first stage would get (TLS's handshake,
      // HTTP's header, echo's idle), and a silent proxy costs no more.
      std::int64_t header_ms = listener.timeouts.idle_ms;
      if (listener.tls) {
        header_ms = listener.tls->handshake_timeout.count();
      } else if (listener.protocol == Protocol::http) {
        header_ms = listener.timeouts.header_ms;
      }
      transport = std::make_unique<ProxyProtocolTransport>(std::move(transport), listener.proxy_protocol->trusted,
                                                           std::chrono::milliseconds(header_ms), tracker,
                                                           listener.name);
    }
    protocols.push_back(std::move(transport));
  }
  return protocols;
}

}  // namespace tiffany
