// Router: pattern compilation, matching, precedence and 404/405.
#include "server/http/router.hpp"

#include <algorithm>
#include <stdexcept>

#include <tiffany/handlers/handler.hpp>

#include "handlers/engine/client_abort.hpp"

namespace tiffany::http {
namespace {

// Calls `visit(segment)` for each segment of a path ("/a/b/" → "a", "b", "").
template <class Visit>
void for_each_segment(std::string_view path, Visit&& visit) {
  std::size_t i = 1;  // skip the leading '/'
  for (;;) {
    const std::size_t end = path.find('/', i);
    if (!visit(path.substr(i, end == std::string_view::npos ? std::string_view::npos : end - i), end)) return;
    if (end == std::string_view::npos) return;
    i = end + 1;
  }
}

}  // namespace

bool Router::same_shape(const Route& a, const Route& b) noexcept {
  if (a.trailing_slash != b.trailing_slash || a.segments.size() != b.segments.size()) return false;
  for (std::size_t i = 0; i < a.segments.size(); ++i) {
    const Segment& x = a.segments[i];
    const Segment& y = b.segments[i];
    if (x.kind != y.kind) return false;
    if (x.kind == SegmentKind::literal && x.text != y.text) return false;  // parameter names do not matter
  }
  return true;
}

void Router::add(std::vector<std::string> methods, std::string_view pattern, std::shared_ptr<Handler> handler,
                 std::string label, RouteMetrics* metrics, const CompressionSettings* compression) {
  if (pattern.empty() || pattern.front() != '/') throw std::invalid_argument("a path pattern must start with '/'");
  Route route{std::move(methods), {}, std::move(handler), false, std::move(label), metrics, std::string(pattern),
              compression};
  std::vector<std::string_view> names;
  bool after_wildcard = false;
  for_each_segment(pattern, [&](std::string_view text, std::size_t end) {
    if (after_wildcard) throw std::invalid_argument("'*' must be the last segment of a path pattern");
    if (text.empty()) {
      if (end != std::string_view::npos) throw std::invalid_argument("empty segment ('//') in a path pattern");
      route.trailing_slash = pattern.size() > 1;
      return true;
    }
    if (text == "*") {
      route.segments.push_back({SegmentKind::wildcard, "*"});
      after_wildcard = true;
    } else if (text.front() == ':') {
      const std::string_view name = text.substr(1);
      if (name.empty()) throw std::invalid_argument("a ':' parameter needs a name");
      if (std::find(names.begin(), names.end(), name) != names.end()) {
        throw std::invalid_argument("parameter ':" + std::string(name) + "' appears twice");
      }
      names.push_back(name);
      route.segments.push_back({SegmentKind::parameter, std::string(name)});
    } else if (text.find('*') != std::string_view::npos) {
      throw std::invalid_argument("'*' must be a whole segment");
    } else {
      route.segments.push_back({SegmentKind::literal, std::string(text)});
    }
    return true;
  });
  for (const Route& earlier : routes_) {
    if (!same_shape(earlier, route)) continue;
    // Why not when only this one takes any method: it still answers the
    // methods the earlier one does not (a fallback for the same path).
    std::string shared;  // a method both answer ("*": any)
    if (route.methods.empty()) {
      if (earlier.methods.empty()) shared = "*";
    } else {
      for (const std::string& method : route.methods) {
        const auto& theirs = earlier.methods;
        if (theirs.empty() || std::find(theirs.begin(), theirs.end(), method) != theirs.end()) {
          shared = method;
          break;
        }
      }
    }
    if (!shared.empty()) {
      throw std::invalid_argument("an earlier route already answers " + shared + " " + earlier.pattern +
                                  ": this one could never be reached for it");
    }
  }
  route.prefix = "/";
  for (; route.literal_count < route.segments.size(); ++route.literal_count) {
    const Segment& segment = route.segments[route.literal_count];
    if (segment.kind != SegmentKind::literal) break;
    route.prefix += segment.text;
    if (route.literal_count + 1 < route.segments.size() || route.trailing_slash) route.prefix += '/';
  }
  route.streams_body = route.handler != nullptr && route.handler->streams_request_body();
  streams_any_ = streams_any_ || route.streams_body;
  route.watches_client = route.handler != nullptr && cancels_on_client_abort(*route.handler);
  routes_.push_back(std::move(route));
}

bool Router::matches(const Route& route, std::string_view path, Request* capture) {
  // Why the prefix: one compare rules out nearly every other route, and
  // matches the leading literal segments (slashes included) of this one.
  // Why its second byte first: it tells most routes apart without a call.
  const std::string_view prefix = route.prefix;
  if (path.size() < prefix.size() || (prefix.size() > 1 && path[1] != prefix[1]) ||
      path.compare(0, prefix.size(), prefix) != 0) {
    return false;
  }
  std::string_view rest = path.substr(prefix.size());  // what is left after the last '/' consumed
  bool slash_consumed = route.literal_count > 0 && prefix.back() == '/';  // a '/' followed the last matched segment
  // All segments literal, no trailing slash: the prefix is the whole path or nothing.
  if (route.literal_count > 0 && !slash_consumed) return rest.empty();
  for (std::size_t i = route.literal_count; i < route.segments.size(); ++i) {
    const Segment& segment = route.segments[i];
    if (segment.kind == SegmentKind::wildcard) {
      if (i > 0 && !slash_consumed) return false;  // "/static/*" needs "/static/..."
      if (capture != nullptr) capture->params.emplace_back("*", std::string(rest));
      return true;
    }
    const std::size_t slash = rest.find('/');
    const std::string_view text = rest.substr(0, slash);
    if (text.empty()) return false;  // the path has no segment here
    if (segment.kind == SegmentKind::literal && segment.text != text) return false;
    if (segment.kind == SegmentKind::parameter && capture != nullptr) {
      capture->params.emplace_back(segment.text, std::string(text));
    }
    slash_consumed = slash != std::string_view::npos;
    rest = slash_consumed ? rest.substr(slash + 1) : std::string_view{};
  }
  return rest.empty() && slash_consumed == route.trailing_slash;
}

bool Router::more_specific(const Route& a, const Route& b) {
  const std::size_t common = std::min(a.segments.size(), b.segments.size());
  for (std::size_t i = 0; i < common; ++i) {
    if (a.segments[i].kind != b.segments[i].kind) return a.segments[i].kind > b.segments[i].kind;
  }
  return a.segments.size() > b.segments.size();
}

bool Router::allows(const Route& route, std::string_view method) {
  if (route.methods.empty()) return true;
  for (const std::string& allowed : route.methods) {
    if (allowed == method || (method == "HEAD" && allowed == "GET")) return true;
  }
  return false;
}

Router::Result Router::route(Request& request) const {
  ++lookups_;
  const Route* best = nullptr;
  bool path_matched = false;
  for (const Route& candidate : routes_) {
    if (!matches(candidate, request.path, nullptr)) continue;
    path_matched = true;
    if (!allows(candidate, request.method)) continue;
    if (best == nullptr || more_specific(candidate, *best)) best = &candidate;
  }
  if (best != nullptr) {
    request.params.clear();
    matches(*best, request.path, &request);
    return {Outcome::found, best->handler.get(), &best->label, &best->pattern, best->metrics, {},
            best->compression, best->streams_body, best->watches_client};
  }
  if (!path_matched) return {Outcome::not_found, nullptr, nullptr, nullptr, nullptr, {}};

  std::vector<std::string> allowed;
  for (const Route& candidate : routes_) {
    if (!matches(candidate, request.path, nullptr)) continue;
    for (const std::string& method : candidate.methods) {
      allowed.push_back(method);
      if (method == "GET") allowed.emplace_back("HEAD");
    }
  }
  std::sort(allowed.begin(), allowed.end());
  allowed.erase(std::unique(allowed.begin(), allowed.end()), allowed.end());
  Result result{Outcome::method_not_allowed, nullptr, nullptr, nullptr, nullptr, {}};
  for (const std::string& method : allowed) {
    if (!result.allow.empty()) result.allow += ", ";
    result.allow += method;
  }
  return result;
}

}  // namespace tiffany::http
