// Router: maps (method, path) to a handler using the routes from the config.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <tiffany/http/request.hpp>

namespace tiffany {
class Handler;
struct RouteMetrics;
}
namespace tiffany::http {
struct CompressionSettings;
}

namespace tiffany::http {

/// Path patterns are '/'-separated segments: literals, `:name` parameters
/// (one segment each) and a final `*` (the rest of the path, possibly empty).
/// The most specific match wins: at the first segment where two patterns
/// differ, literal beats parameter beats wildcard. A path that matches only
/// routes for other methods gives 405 with their methods; none gives 404.
/// HEAD requests use GET routes unless a HEAD route matches.
class Router {
 public:
  enum class Outcome { found, not_found, method_not_allowed };
  struct Result {
    Outcome outcome;
    Handler* handler = nullptr;         // when found
    const std::string* label = nullptr;  // when found: names the handler in logs
    const std::string* pattern = nullptr;  // when found: the route's path pattern
    RouteMetrics* metrics = nullptr;     // when found: the route's counters, if any
    std::string allow;                  // when method_not_allowed: "GET, HEAD"
    const CompressionSettings* compression = nullptr;  // when found: the route's, or nullptr (off)
    bool streams_body = false;  // when found: its handler reads the body as it arrives
    bool watches_client = false;  // when found: its handler is canceled when the client leaves (ClientAbortPolicy)
  };

  /// Adds a route; an empty `methods` means any method. `label` names the
  /// handler in log lines (e.g. `handler "shop.cart" from /opt/libshop.so`).
  /// `compression`: the route's content coding settings (nullptr: off); the
  /// caller keeps them alive as long as the router.
  /// Throws std::invalid_argument naming the problem if `pattern` is
  /// malformed, or if an earlier route has the same shape of path (names of
  /// parameters aside) and a method in common: this one could never be reached.
  void add(std::vector<std::string> methods, std::string_view pattern, std::shared_ptr<Handler> handler,
           std::string label = "handler", RouteMetrics* metrics = nullptr,
           const CompressionSettings* compression = nullptr);

  /// Finds the handler for `request` and fills `request.params`.
  Result route(Request& request) const;

  std::size_t size() const noexcept { return routes_.size(); }
  /// How many times route() ran (this copy of the router: one worker's); for tests and profiles.
  std::uint64_t lookups() const noexcept { return lookups_; }
  /// True when some route's handler streams request bodies: only then does
  /// a connection stop at a header section to route it before its body.
  bool streams_any() const noexcept { return streams_any_; }

 private:
  enum class SegmentKind { literal = 2, parameter = 1, wildcard = 0 };
  struct Segment {
    SegmentKind kind;
    std::string text;  // literal text or parameter name
  };
  struct Route {
    std::vector<std::string> methods;
    std::vector<Segment> segments;
    std::shared_ptr<Handler> handler;
    bool trailing_slash;  // pattern ends with '/', e.g. "/docs/"
    std::string label;
    RouteMetrics* metrics;
    std::string pattern;
    const CompressionSettings* compression;
    std::string prefix = {};  // what every path it matches starts with: "/" and its leading literal segments
    std::size_t literal_count = 0;  // how many segments the prefix holds
    bool streams_body = false;      // handler->streams_request_body(), asked once here
    bool watches_client = false;    // cancels_on_client_abort(*handler), asked once here
  };

  static bool matches(const Route& route, std::string_view path, Request* capture);
  /// Whether both patterns match the same paths.
  static bool same_shape(const Route& a, const Route& b) noexcept;
  static bool more_specific(const Route& a, const Route& b);
  static bool allows(const Route& route, std::string_view method);

  std::vector<Route> routes_;
  bool streams_any_ = false;
  mutable std::uint64_t lookups_ = 0;
};

}  // namespace tiffany::http
