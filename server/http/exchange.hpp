// Exchange: what happens to one request whatever protocol carried it.
#pragma once

#include <chrono>
#include <cstdint>
#include <exception>
#include <optional>
#include <string>

#include <tiffany/coro/deadline.hpp>
#include <tiffany/coro/task.hpp>
#include <tiffany/handlers/handler.hpp>
#include <tiffany/http/body_reader.hpp>
#include <tiffany/http/request.hpp>
#include <tiffany/http/response.hpp>

#include "handlers/engine/middleware_chain.hpp"
#include "handlers/engine/splice_sink.hpp"
#include "http/engine/compression/response_compression.hpp"
#include "server/http/http_site.hpp"
#include "server/http/response_wire.hpp"
#include "server/http/router.hpp"

namespace tiffany {
struct RouteMetrics;
}

namespace tiffany::http {

/// What becomes of the response once the handler ended: decided in one
/// place for every protocol (Exchange::judge), acted on by Exchange::respond
/// through the protocol's wire.
enum class Verdict : std::uint8_t {
  answer,         ///< the handler's response goes out: whole, or its stream ends
  error,          ///< nothing of the response went out: a plain error goes instead
  cut,            ///< its head is out and it cannot end well: HTTP/1.1 closes, HTTP/2 resets the stream
  unanswered,     ///< nobody waits for an answer (the client went away mid-body)
  end_websocket,  ///< the handler took a WebSocket: the protocol ends the session
};

struct Judgment {
  Verdict verdict;
  int status = 0;  ///< with Verdict::error: 400, 408, 413, 500 or 503
};

/// One request from its head to its log line, the part every protocol shares
/// (HTTP/1.1's HttpConnection, HTTP/2's Http2Stream), run by respond(): its
/// id, routing with the listener's 404/405 fallbacks, the listener's
/// middleware and the handler under the handler deadline, the judgment of
/// how it ended (error lines, plain errors), the response's content coding,
/// and the request's duration, route count and access-log line. It is also
/// the response's sink (Response::sink(): BodySink, ConnectionUpgrade,
/// SpliceSink): a streamed response's head and pieces, with their content
/// coding, go through it. Everything goes out through the protocol's narrow
/// writer (ResponseWire); the protocol reads the request, implements that
/// writer, and decides what the answered request does to its connection or
/// stream.
class Exchange final : public BodySink, public websocket::ConnectionUpgrade, public SpliceSink {
 public:
  /// `wire` (the protocol's writer) lives as long as the exchange; `over`
  /// names the protocol in log lines: "" for HTTP/1.1, " (HTTP/2)".
  Exchange(const HttpSite& site, ResponseWire& wire, const char* over = "") noexcept
      : site_(site), wire_(wire), over_(over) {}
  Exchange(const Exchange&) = delete;
  Exchange& operator=(const Exchange&) = delete;

  /// Answers `request` into `response` (exchange_respond.cpp), on the
  /// protocol's task: begin(); OPTIONS * (200); the routing when the
  /// listener has no middleware (a plain 404 or 405 goes as it is); the
  /// handler under `deadline` (armed for it here), its end told by the wire
  /// and judged; then through the wire a plain error, a cut, the WebSocket's
  /// end, or the answer (a 2xx to an extended CONNECT that took no WebSocket
  /// becomes 400; a whole body coded, a streamed one ended with its coding's
  /// tail); and finish() with the time it took, or reset() when the wire
  /// logs nothing. A TaskCanceled the wire does not take as a failure
  /// (cancel_unwinds) leaves it, after the WebSocket's end if one was taken.
  /// Why one coroutine for all of it: it replaces the protocol's own, so the
  /// request path has no frame more.
  Task<void> respond(Request& request, Response& response, Deadline& deadline);
  /// Makes `response` the plain-text answer `status` ("404 Not Found\n").
  static void plain_error(Response& response, int status);

  /// A new request: its id (a valid X-Request-Id it carries, else a new one,
  /// set as kRequestId for the handler and what it spawns), counted; its route
  /// counts under the listener's unmatched requests until one is found.
  /// (respond() calls it.)
  void begin(const Request& request);
  /// The request's id; empty between requests.
  const std::string& request_id() const noexcept { return request_id_; }

  /// The protocol routed `request` already (HTTP/2, at its header block, to
  /// learn whether its handler streams the body): route() takes this result
  /// unless the middleware changed the method or the path since.
  void routed_early(Router::Result routed, const Request& request);
  /// Routes `request` before its body is read (is there a handler to invite
  /// the body for with 100 Continue?) and keeps the result as routed_early()
  /// does; a result kept already for the same method and path is taken.
  Router::Outcome route_ahead(Request& request);
  /// The handler to run for `request`, with `response` prepared (a 405's
  /// Allow, a fallback's status); nullptr when `response` holds the whole
  /// answer already (the plain-text 404 or 405).
  Handler* route(Request& request, Response& response);
  /// The routed handler asked to be canceled when its client hangs up.
  bool watches_client() const noexcept { return watches_client_; }

  /// Arms `deadline` for the handler, or disarms it when handlers have no limit.
  void arm_handler_deadline(Deadline& deadline) const {
    if (site_.timeouts.handler.count() > 0) {
      deadline.rearm_after(site_.timeouts.handler);
    } else {
      deadline.disarm();  // handlers may take as long as they need
    }
  }
  /// The handler's work for `request`: the listener's middleware, whose
  /// chain ends in the routing, or when there is none the routed `target`.
  /// Why not a coroutine: the task is the chain's or the handler's own, so
  /// the request path has no frame more than respond()'s.
  Task<void> handle(Request& request, Response& response, Handler* target) {
    if (site_.middleware == nullptr) return target->handle(request, response);
    return site_.middleware->run(request, response, route_step_);
  }

  /// The name log lines give the handler: the routed one's, or a stand-in
  /// before routing (the listener's middleware may fail first).
  const char* handler_label() const noexcept;
  /// The routed handler's label, or `otherwise` before routing.
  const char* handler_label_or(const char* otherwise) const noexcept;
  /// What becomes of the response now that the handler ended (`end`), with the
  /// response as it left it; logs a handler that ran out of time (warn) or
  /// failed (error). In this order: a WebSocket is ended whatever else
  /// happened; a body that failed to arrive is the answer, whatever the
  /// handler made of it (it may have thrown on it); then the time-out (503)
  /// and the failure (500), each a cut once the head is out; then a
  /// response the handler cut short (Response::cut), logged with its reason.
  Judgment judge(const Request& request, const Response& response, const HandlerEnd& end) const;

  // ---- the response's sink (exchange_sink.cpp) ----
  /// BodySink: the head (first call: its content coding begins, the length
  /// it declares is dropped when coding replaces the body), then `piece`,
  /// coded, through the wire.
  Task<Delivery> write_body(Response& response, std::string_view piece) override;
  /// BodySink: the head, then the file from the page cache where the wire
  /// can (not when coded), else piece by piece through write_body.
  Task<Delivery> send_file(Response& response, int fd, std::uint64_t offset, std::uint64_t length) override;
  /// ConnectionUpgrade: the wire's.
  Task<WebSocket*> upgrade_to_websocket(Response& response, websocket::UpgradeTerms terms,
                                        WebSocketOptions options) override {
    return wire_.upgrade_to_websocket(response, std::move(terms), options);
  }
  bool websocket_by_connect() const noexcept override { return wire_.websocket_by_connect(); }
  /// SpliceSink: the head, then the wire's socket when the body may go on it
  /// byte for byte: declared length, no content coding, a body that is sent.
  Task<SpliceTarget> begin_splice(Response& response) override;
  void spliced(std::uint64_t bytes) noexcept override;
  void splice_failed(bool timed_out) noexcept override { wire_.splice_failed(timed_out); }
  std::chrono::milliseconds write_timeout() const noexcept override { return site_.timeouts.write; }
  /// What the handler streamed of the body, before any content coding (the
  /// declared length's check).
  std::uint64_t identity_bytes() const noexcept { return identity_bytes_; }

  /// The request is answered: its duration, its route's count of `status`,
  /// and its access-log line (`body_bytes` sent); then the exchange is ready
  /// for the next request.
  void finish(const Request& request, int status, std::uint64_t body_bytes, std::chrono::steady_clock::duration took);
  /// Forgets the request (finish() does, after its log line): for a request
  /// that ends without one (its stream reset), before the exchange's reuse.
  void reset() noexcept;
  /// Frees what a large response grew before the exchange waits for reuse.
  void trim() noexcept { compression_.trim(); }

 private:
  /// The end of the listener's middleware chain: the routing, then the route's handler.
  class RouteStep final : public Handler {
   public:
    explicit RouteStep(Exchange& exchange) noexcept : exchange_(exchange) {}
    Task<void> handle(Request& request, Response& response) override;

   private:
    Exchange& exchange_;
  };
  /// A listener's not_found / method_not_allowed handler: the status stays
  /// 404/405 unless the handler chose one other than 200.
  class FallbackStep final : public Handler {
   public:
    explicit FallbackStep(Exchange& exchange) noexcept : exchange_(exchange) {}
    Task<void> handle(Request& request, Response& response) override;

   private:
    Exchange& exchange_;
  };

  /// Acts on `judgment` (not end_websocket) through the wire.
  void send_verdict(const Request& request, Response& response, const Judgment& judgment);
  void log_timeout(const Request& request) const;
  void log_failure(const Request& request, const std::exception_ptr& failure) const;
  void log_websocket_failure(const Request& request, const std::exception_ptr& failure) const;

  const HttpSite& site_;
  ResponseWire& wire_;
  const char* over_;
  bool head_request_ = false;         // the request's method is HEAD: no body is sent
  std::uint64_t identity_bytes_ = 0;  // streamed by the handler, before any content coding
  std::string request_id_;
  const std::string* handler_label_ = nullptr;  // the routed handler's; null before routing
  RouteMetrics* route_metrics_ = nullptr;       // where the response is counted
  bool watches_client_ = false;
  Handler* fallback_ = nullptr;  // the site's not_found or method_not_allowed handler FallbackStep runs
  int fallback_status_ = 0;      // 404 or 405
  RouteStep route_step_{*this};
  FallbackStep fallback_step_{*this};
  ResponseCompression compression_;  // the response's content coding, begun by route() for the routed handler
  std::optional<Router::Result> routed_;  // routed_early()'s, for the method and path below
  std::string routed_method_;
  std::string routed_path_;
};

}  // namespace tiffany::http
