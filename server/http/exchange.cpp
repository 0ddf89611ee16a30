// Exchange: request id, routing and fallbacks, the judgment of the handler's end, the log line.
#include "server/http/exchange.hpp"

#include <utility>

#include <tiffany/coro/exception_message.hpp>
#include <tiffany/handlers/server_stats.hpp>
#include <tiffany/http/request_context.hpp>
#include <tiffany/http/request_id.hpp>

#include "handlers/engine/metrics.hpp"
#include "server/log/access_log.hpp"
#include "server/log/error_log.hpp"

namespace tiffany::http {

void Exchange::begin(const Request& request) {
  add_stat(Stat::requests_total);
  head_request_ = request.is_head();
  identity_bytes_ = 0;
  const std::optional<std::string_view> given_id = request.headers.get("X-Request-Id");
  if (given_id && is_valid_request_id(*given_id)) {
    request_id_.assign(*given_id);
  } else {
    make_request_id(request_id_);
  }
  kRequestId.set(request_id_);  // for the handler, what it spawns, and log lines on its behalf
}

void Exchange::routed_early(Router::Result routed, const Request& request) {
  routed_ = std::move(routed);
  routed_method_.assign(request.method);
  routed_path_.assign(request.path);
}

Router::Outcome Exchange::route_ahead(Request& request) {
  const bool kept = routed_ && request.method == routed_method_ && request.path == routed_path_;
  if (!kept) routed_early(site_.router.route(request), request);
  return routed_->outcome;
}

Handler* Exchange::route(Request& request, Response& response) {
  // Why the early result only for the same method and path: a middleware may rewrite them.
  const bool same = routed_ && request.method == routed_method_ && request.path == routed_path_;
  const Router::Result routed = same ? *std::move(routed_) : site_.router.route(request);
  routed_.reset();
  if (routed.metrics != nullptr) route_metrics_ = routed.metrics;
  if (routed.outcome == Router::Outcome::found) {
    kRoute.set(RouteInfo{*routed.pattern, *routed.label});
    handler_label_ = routed.label;
    watches_client_ = routed.watches_client;
    compression_.begin(routed.compression, request);
    return routed.handler;
  }
  kRoute.reset();  // the previous request's route is not this one's
  const bool not_found = routed.outcome == Router::Outcome::not_found;
  response.status = not_found ? 404 : 405;
  if (!not_found) response.headers.set("Allow", routed.allow);
  fallback_ = not_found ? site_.not_found.get() : site_.method_not_allowed.get();
  if (fallback_ != nullptr) {
    fallback_status_ = response.status;
    return &fallback_step_;
  }
  response.headers.set("Content-Type", "text/plain; charset=utf-8");
  response.body = not_found ? "404 Not Found\n" : "405 Method Not Allowed\n";
  return nullptr;
}

Task<void> Exchange::RouteStep::handle(Request& request, Response& response) {
  Handler* target = exchange_.route(request, response);
  if (target == nullptr) co_return;
  exchange_.wire_.handler_routed();
  co_await target->handle(request, response);
}

Task<void> Exchange::FallbackStep::handle(Request& request, Response& response) {
  const int status = exchange_.fallback_status_;
  co_await exchange_.fallback_->handle(request, response);
  if (response.status == 200 && !response.streaming()) response.status = status;
}

const char* Exchange::handler_label() const noexcept {
  // Why a stand-in: the listener's middleware may fail before any route is chosen.
  return handler_label_or("middleware or 404/405 handler");
}

const char* Exchange::handler_label_or(const char* otherwise) const noexcept {
  return handler_label_ != nullptr ? handler_label_->c_str() : otherwise;
}

Judgment Exchange::judge(const Request& request, const Response& response, const HandlerEnd& end) const {
  if (end.websocket) {
    if (end.failure) log_websocket_failure(request, end.failure);
    return {Verdict::end_websocket};
  }
  // What the head going out changes: an error can no longer replace the response.
  const auto error_or_cut = [&response](int status) {
    return response.streaming() ? Judgment{Verdict::cut} : Judgment{Verdict::error, status};
  };
  if (end.body > BodyStatus::end) {
    if (end.body == BodyStatus::peer_gone) return {Verdict::unanswered};
    if (end.body_error_status != 0) return error_or_cut(end.body_error_status);
    return error_or_cut(end.body == BodyStatus::too_large ? 413 : end.body == BodyStatus::timed_out ? 408 : 400);
  }
  if (end.timed_out) {
    log_timeout(request);
    return error_or_cut(503);
  }
  if (end.failure) {
    log_failure(request, end.failure);
    return error_or_cut(500);
  }
  if (!response.cut_reason().empty()) {
    if (error_log().enabled(LogLevel::error)) {
      error_log().log(LogLevel::error, "%s cut its response to %s %s short%s: %s", handler_label(),
                      request.method.c_str(), request.path.c_str(), over_, response.cut_reason().c_str());
    }
    return {Verdict::cut};
  }
  return {Verdict::answer};
}

void Exchange::log_timeout(const Request& request) const {
  error_log().log(LogLevel::warn, "%s timed out on %s %s after %lld ms%s", handler_label(), request.method.c_str(),
                  request.path.c_str(), static_cast<long long>(site_.timeouts.handler.count()), over_);
}

void Exchange::log_failure(const Request& request, const std::exception_ptr& failure) const {
  if (!error_log().enabled(LogLevel::error)) return;
  error_log().log(LogLevel::error, "%s failed on %s %s%s: %s", handler_label(), request.method.c_str(),
                  request.path.c_str(), over_, exception_message(failure).c_str());
}

void Exchange::log_websocket_failure(const Request& request, const std::exception_ptr& failure) const {
  if (!error_log().enabled(LogLevel::error)) return;
  error_log().log(LogLevel::error, "%s failed on WebSocket %s%s: %s", handler_label(), request.path.c_str(), over_,
                  exception_message(failure).c_str());
}

void Exchange::finish(const Request& request, int status, std::uint64_t body_bytes,
                      std::chrono::steady_clock::duration took) {
  observe_request_duration(took);
  RouteMetrics* metrics = route_metrics_ != nullptr ? route_metrics_ : site_.unmatched;
  if (metrics != nullptr) metrics->count(status);
  if (site_.access_log != nullptr) {
    site_.access_log->record(request, request.peer, request_id_, status, body_bytes,
                             std::chrono::duration_cast<std::chrono::microseconds>(took));
  }
  reset();
}

void Exchange::reset() noexcept {
  request_id_.clear();  // a parse error before the next request has none
  handler_label_ = nullptr;
  route_metrics_ = nullptr;
  watches_client_ = false;
  fallback_ = nullptr;
  fallback_status_ = 0;
  routed_.reset();
  compression_.end();
}

}  // namespace tiffany::http
