// HttpClient: a request's way through the pool: a slot, a connection (idle or new), the write, the response head.
#include <tiffany/client/http_client.hpp>

#include <chrono>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <utility>

#include <tiffany/coro/deadline.hpp>
#include <tiffany/net/tcp_connect.hpp>

#include "client/internal/client_pools.hpp"
#include "client/internal/origin_url.hpp"
#include "client/internal/request_sender.hpp"
#include "client/internal/response_error.hpp"
#include "client/internal/response_events.hpp"
#include "client/internal/stage_deadline.hpp"
#include "coro/engine/worker_local.hpp"

namespace tiffany {
namespace {

bool is_idempotent(std::string_view method) noexcept {
  return method == "GET" || method == "HEAD" || method == "PUT" || method == "DELETE" || method == "OPTIONS" ||
         method == "TRACE";
}

http::ResponseLimits parser_limits(const ClientResponseLimits& limits) {
  http::ResponseLimits out;
  out.max_header_bytes = limits.max_header_bytes;
  out.max_header_count = limits.max_header_count;
  out.max_trailer_bytes = limits.max_trailer_bytes;
  out.max_interim_responses = limits.max_interim_responses;
  return out;
}

ClientError connect_error(const ConnectError& error, const std::string& what, ClientStage timeout_stage) {
  switch (error.kind) {
    case ConnectErrorKind::resolve: return {ClientErrorKind::resolve, what + ": " + error.message, ClientStage::none};
    case ConnectErrorKind::tls: return {ClientErrorKind::tls, what + ": " + error.message, ClientStage::none};
    case ConnectErrorKind::timeout: return {ClientErrorKind::timeout, what + ": " + error.message, timeout_stage};
    default: return {ClientErrorKind::connect, what + ": " + error.message, ClientStage::none};
  }
}

// Holds a pool slot until an exchange takes it over; otherwise gives it back
// (and the connection, closed, if the request failed with it).
class SlotGuard {
 public:
  SlotGuard(detail::ClientPools& pools, const std::string& origin) noexcept : pools_(pools), origin_(origin) {}
  SlotGuard(const SlotGuard&) = delete;
  SlotGuard& operator=(const SlotGuard&) = delete;
  ~SlotGuard() {
    if (held_) pools_.give_back(origin_, nullptr, false);
  }
  void hand_over() noexcept { held_ = false; }

 private:
  detail::ClientPools& pools_;
  const std::string& origin_;
  bool held_ = true;
};

}  // namespace

namespace {

std::shared_ptr<const detail::OriginUrl> parse_base_url(const std::string& base_url) {
  if (base_url.empty()) return nullptr;
  std::string error;
  std::optional<detail::OriginUrl> parsed = detail::parse_origin_url(base_url, error);
  if (!parsed) throw std::invalid_argument("HttpClient base_url \"" + base_url + "\": " + error);
  return std::make_shared<const detail::OriginUrl>(std::move(*parsed));
}

}  // namespace

HttpClient::HttpClient(HttpClientOptions options)
    : options_(std::move(options)),
      pools_(std::make_shared<detail::ClientPools>(options_.pool)),
      base_(parse_base_url(options_.base_url)) {}

HttpClient::~HttpClient() { pools_->shut_down(); }

HttpClient& HttpClient::for_this_thread() {
  // Why made on first use: a worker that never calls out holds no pools.
  return worker_local<HttpClient>();
}

std::size_t HttpClient::idle_connections() const noexcept { return pools_->idle_count(); }
std::size_t HttpClient::busy_connections() const noexcept { return pools_->busy_count(); }

Task<ClientResult<ClientResponse>> HttpClient::get(std::string url) {
  ClientRequest request;
  request.url = std::move(url);
  return fetch(std::move(request));
}

Task<ClientResult<ClientResponse>> HttpClient::post(std::string url, std::string body, std::string content_type) {
  ClientRequest request;
  request.method = "POST";
  request.url = std::move(url);
  request.body = std::move(body);
  if (!content_type.empty()) request.headers.add("Content-Type", content_type);
  return fetch(std::move(request));
}

Task<ClientResult<ClientResponse>> HttpClient::fetch(ClientRequest request) {
  const std::uint64_t max_body = options_.limits.max_body_bytes;
  ClientResult<ClientExchange> opened = co_await open(std::move(request));
  if (!opened) co_return opened.error();
  ClientExchange& exchange = opened.value();
  ClientResponse response;
  response.status = exchange.status();
  response.headers = exchange.headers();
  for (;;) {
    const ClientBodyChunk chunk = co_await exchange.read();
    if (chunk.status == ClientBodyChunk::Status::error) co_return exchange.error();
    if (!chunk) break;
    if (response.body.size() + chunk.bytes.size() > max_body) {
      co_return ClientError{
          ClientErrorKind::too_large,
          exchange.what_ + ": the response body passed max_body_bytes (" + std::to_string(max_body) + ")",
          ClientStage::none};
    }
    response.body.append(chunk.bytes);
  }
  response.trailers = exchange.trailers();
  co_return response;
}

Task<ClientResult<ClientExchange>> HttpClient::open(ClientRequest request) {
  std::shared_ptr<detail::ClientPools> pools = pools_;
  const HttpClientOptions& options = options_;
  std::shared_ptr<const detail::OriginUrl> base = base_;
  const ClientTimeouts& timeouts = request.timeouts ? *request.timeouts : options.timeouts;
  std::string what;
  std::string error;
  // Why a pointer: a path alone goes to the base origin, parsed once, not per request.
  std::optional<detail::OriginUrl> parsed;
  const detail::OriginUrl* url = base.get();
  std::string_view target = std::string_view(request.url).substr(0, request.url.find('#'));
  if (base && !request.url.empty() && request.url.front() == '/') {
    what.append(request.method).append(base->tls ? " https://" : " http://").append(base->host_header);
    what.append(request.url);
  } else {
    what = request.method + " " + request.url;
    parsed = detail::parse_origin_url(request.url, error);
    if (!parsed) co_return ClientError{ClientErrorKind::bad_request, what + ": " + error, ClientStage::none};
    url = &*parsed;
    target = parsed->target;
  }
  if (request.body_source != nullptr && !request.body.empty()) {
    co_return ClientError{ClientErrorKind::bad_request, what + ": both a body and a body_source", ClientStage::none};
  }
  if (request.body_source == nullptr && request.body_length && *request.body_length != request.body.size()) {
    co_return ClientError{ClientErrorKind::bad_request, what + ": body_length differs from the body's size",
                          ClientStage::none};
  }
  std::optional<detail::RequestHead> head = detail::build_request_head(request, *url, target, error);
  if (!head) co_return ClientError{ClientErrorKind::bad_request, what + ": " + error, ClientStage::none};
  std::optional<Scheduler::Clock::time_point> total_end;
  if (timeouts.total.count() > 0) total_end = Scheduler::current().now() + timeouts.total;
  const bool head_request = request.method == "HEAD";

  for (int attempt = 0;; ++attempt) {
    // Why a try first: a free slot needs neither a deadline nor a wait.
    if (!pools->try_reserve(url->origin_key)) {
      const detail::StageEnd queue_end = detail::stage_end(ClientStage::connect, timeouts.connect, total_end);
      Deadline queue_deadline = Deadline::unarmed();
      if (queue_end.when) queue_deadline.rearm(*queue_end.when);
      const Timed<void> reserved = co_await queue_deadline.guard(pools->reserve(url->origin_key));
      queue_deadline.disarm();
      if (reserved.timed_out()) {
        co_return ClientError{ClientErrorKind::timeout,
                              what + ": no connection to the origin came free (max_per_origin) within the " +
                                  std::string(to_string(queue_end.stage)) + " timeout",
                              queue_end.stage};
      }
    }
    SlotGuard slot(*pools, url->origin_key);
    // Why fresh on the retry: the idle one just failed, its siblings are as old.
    std::unique_ptr<detail::ClientConnection> connection = attempt == 0 ? pools->take_idle(url->origin_key) : nullptr;
    if (!connection) {
      const detail::StageEnd connect_end = detail::stage_end(ClientStage::connect, timeouts.connect, total_end);
      ConnectOptions connect;
      if (connect_end.when) {
        const auto left = std::chrono::ceil<std::chrono::milliseconds>(*connect_end.when - Scheduler::current().now());
        connect.timeout = std::max(left, std::chrono::milliseconds(1));
      } else {
        connect.timeout = std::chrono::hours(24);
      }
      if (url->tls) connect.tls = options.tls;
      connect.resolver = options.resolver;
      ConnectResult connected = co_await tcp_connect(url->host, url->port, std::move(connect));
      if (!connected) co_return connect_error(connected.error(), what, connect_end.stage);
      connection = std::make_unique<detail::ClientConnection>(std::move(connected.stream()), url->origin_key,
                                                              parser_limits(options.limits));
    }
    connection->response_bytes = 0;
    connection->first_byte_timeout = timeouts.first_byte;
    connection->read_timeout = timeouts.read;
    connection->total_end = total_end;
    connection->parser().expect(http::ExpectedResponse{head_request, false});

    const detail::SendResult sent = co_await detail::send_request(*connection, request, *head, timeouts, what);
    // Why these may go again: nothing of the response came, and the request
    // can be written again whole (RFC 9110 §9.2.2 asks idempotence for an
    // automatic retry; a whole-string body is replayed as the brief for the
    // pool requires, a streamed one never once a piece was read).
    const bool replayable = request.body_source == nullptr || (is_idempotent(request.method) && !sent.source_touched);
    const bool may_retry = attempt == 0 && connection->reused && replayable;
    if (sent.error) {
      if (sent.connection_lost && may_retry) continue;
      co_return *sent.error;
    }
    bool retry = false;
    for (;;) {
      const detail::ResponseStep step = co_await detail::next_response_event(*connection);
      const auto event = step.result.event;
      if (step.timed_out == ClientStage::none && step.read_error == 0) {
        if (event == http::ResponseParser::Event::interim) continue;
        if (event == http::ResponseParser::Event::headers) {
          const http::ResponseHead& response_head = connection->parser().head();
          ClientExchange exchange(pools, std::move(connection), std::move(what));
          exchange.status_ = response_head.status;
          exchange.headers_ = response_head.headers;
          slot.hand_over();
          co_return exchange;
        }
      }
      const bool lost_before_response =
          connection->response_bytes == 0 && (step.read_error != 0 || (step.timed_out == ClientStage::none &&
                                                                       event == http::ResponseParser::Event::closed));
      if (lost_before_response && may_retry) {
        retry = true;
        break;
      }
      co_return detail::response_error(step, connection->parser(), what, *connection);
    }
    if (retry) continue;
  }
}

}  // namespace tiffany
