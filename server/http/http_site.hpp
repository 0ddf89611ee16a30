// HttpSite: what one HTTP listener serves: its routes and its limits.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <tiffany/http/http_limits.hpp>

#include "http/engine/compression/compression_settings.hpp"
#include "server/http/router.hpp"

namespace tiffany {
class AccessLog;
class Handler;
class MiddlewareChain;
class ConnectionTracker;
struct Http2Metrics;
struct WebSocketMetrics;
struct RouteMetrics;
}

namespace tiffany::http {

/// A listener's HTTP/2 (see docs/config.md, `http2`).
struct Http2Settings {
  bool enabled = false;
  std::uint32_t max_concurrent_streams = 128;
  std::uint32_t initial_window_size = 65'535;
  std::uint32_t max_header_list_size = 16'384;
};

struct HttpSite {
  Router router;
  HttpLimits limits;
  HttpTimeouts timeouts;
  Http2Settings http2;
  Http2Metrics* http2_metrics = nullptr;  // the worker's HTTP/2 counters for this listener; set when http2 is on
  WebSocketMetrics* websocket_metrics = nullptr;  // the worker's WebSocket counters for this listener
  AccessLog* access_log = nullptr;   // one line per request when set; owned by the worker
  RouteMetrics* unmatched = nullptr;  // counts responses no route produced (404, 405, bad input)
  ConnectionTracker* tracker = nullptr;  // the worker's: limits and graceful shutdown
  /// The routes' compression settings, which the router points into (one per distinct config); copies of a site share them.
  std::vector<std::shared_ptr<const CompressionSettings>> compression;
  /// The listener's middleware, run around the routing for every request
  /// (404 and 405 included); null when it has none.
  std::shared_ptr<const MiddlewareChain> middleware;
  std::shared_ptr<Handler> not_found;           // answers 404s; null: plain text
  std::shared_ptr<Handler> method_not_allowed;  // answers 405s (after Allow is set); null: plain text
};

}  // namespace tiffany::http
