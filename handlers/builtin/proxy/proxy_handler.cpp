// ProxyHandler: pick a server, send the request (streamed body), retry or hedge, and stream the response back.
#include "handlers/builtin/proxy/proxy_handler.hpp"

#include <algorithm>
#include <charconv>
#include <string_view>
#include <vector>

#include <tiffany/coro/race.hpp>
#include <tiffany/coro/scheduler.hpp>
#include <tiffany/coro/sleep.hpp>
#include <tiffany/coro/deadline.hpp>

#include "client/upstream/hash_key.hpp"
#include "client/upstream/proxy_headers.hpp"
#include "handlers/builtin/proxy/proxy_splice.hpp"
#include "handlers/builtin/proxy/proxy_upstreams.hpp"

namespace tiffany::proxy {
namespace {

using namespace std::chrono_literals;

// The request body as the client's BodySource, read from the handler's own task.
class RequestBody final : public http::BodySource {
 public:
  explicit RequestBody(http::BodyReader& reader) noexcept : reader_(reader) {}

  // Reads the first piece before a server is chosen, so that a malformed
  // body (a bad chunk size) is the client's 400 whatever the upstreams'
  // state, as nginx judges what it has read of a body first. False when the
  // body failed: the server answers for it (400, 408, 413, or nothing).
  Task<bool> read_ahead() {
    ahead_ = co_await reader_.read();
    has_ahead_ = true;
    co_return !ahead_.failed();
  }

  Task<http::BodyChunk> read_body() override {
    if (!has_ahead_) return reader_.read();
    has_ahead_ = false;
    // Why the view is still good: it lasts until the next read, which is the one after this.
    return give(ahead_);
  }

 private:
  static Task<http::BodyChunk> give(http::BodyChunk chunk) { co_return chunk; }

  http::BodyReader& reader_;
  http::BodyChunk ahead_;
  bool has_ahead_ = false;
};

bool idempotent(std::string_view method) {
  return method == "GET" || method == "HEAD" || method == "OPTIONS" || method == "PUT" || method == "DELETE" ||
         method == "TRACE";
}

std::optional<std::uint64_t> content_length(const http::Headers& headers) {
  const std::optional<std::string_view> value = headers.get("Content-Length");
  if (!value) return std::nullopt;
  std::uint64_t length = 0;
  const auto [end, error] = std::from_chars(value->data(), value->data() + value->size(), length);
  if (error != std::errc() || end != value->data() + value->size()) return std::nullopt;
  return length;
}

// Who asked: "127.0.0.1:5000" or "[::1]:5000" → address and port; over TLS or not (proto=https).
upstream::ClientInfo client_info(const http::Request& request) {
  upstream::ClientInfo info;
  std::string_view peer = request.peer;
  const std::size_t colon = peer.rfind(':');
  if (colon != std::string_view::npos) {
    std::uint16_t port = 0;
    const std::string_view digits = peer.substr(colon + 1);
    (void)std::from_chars(digits.data(), digits.data() + digits.size(), port);
    info.port = port;
    peer = peer.substr(0, colon);
  }
  if (peer.size() >= 2 && peer.front() == '[' && peer.back() == ']') peer = peer.substr(1, peer.size() - 2);
  info.address = std::string(peer);
  info.tls = request.tls;
  info.version_major = request.version_major;
  info.version_minor = request.version_minor;
  return info;
}

// True when the request failed before the connection it was to go on existed.
bool nothing_sent(const ClientError& error) {
  switch (error.kind) {
    case ClientErrorKind::resolve:
    case ClientErrorKind::connect:
    case ClientErrorKind::tls: return true;
    case ClientErrorKind::timeout: return error.stage == ClientStage::connect;
    default: return false;
  }
}

bool answer_has_no_body(const http::Request& request, int status) {
  return request.is_head() || status == 204 || status == 304 || (status >= 100 && status < 200);
}

void answer_error(http::Response& response, int status, std::string_view why) {
  response.clear();
  response.status = status;
  response.set_content_type("text/plain; charset=utf-8");
  response.body = std::string(status == 504 ? "504 Gateway Timeout" : "502 Bad Gateway") + ": " + std::string(why) +
                  "\n";
}

// Shared by the two racers of a hedge: how many are still trying, so a
// failing racer waits for the other (whichever answers first wins; an error
// wins only when both failed).
struct HedgeState {
  int running = 1;
};

// The largest sized upstream body passed on whole rather than streamed.
constexpr std::uint64_t kWholeBodyMax = 64 * 1024;

// Why a day: the race cancels a parked racer as soon as the other ends,
// and the other always ends (its own first-byte timeout bounds it).
constexpr auto kParked = std::chrono::hours(24);

Task<Attempt> first_racer(std::shared_ptr<HedgeState> state, std::shared_ptr<UpstreamRuntime> runtime,
                          std::size_t server, ClientRequest request) {
  Attempt attempt = co_await run_attempt(runtime, server, std::move(request));
  if (!attempt.ok() && --state->running > 0) co_await Sleep(kParked);
  co_return attempt;
}

Task<Attempt> second_racer(std::shared_ptr<HedgeState> state, std::shared_ptr<UpstreamRuntime> runtime,
                           std::size_t first, std::string key, ClientRequest request,
                           std::chrono::milliseconds hedge_after) {
  co_await Sleep(hedge_after);
  const std::size_t tried[] = {first};
  const std::optional<std::size_t> picked = runtime->group().pick(key, tried, Scheduler::current().now());
  const bool budgeted = picked && *picked != first && runtime->retry_budget().try_acquire_retry();
  if (!budgeted) {
    if (picked && *picked != first) UpstreamServerMetrics::add(runtime->metrics(*picked).budget_refusals);
    // No other server, or no budget: the first attempt decides (the race cancels this park).
    co_await Sleep(kParked);
    Attempt never;
    never.server = first;
    never.error = ClientError{ClientErrorKind::timeout, "no hedge was sent", ClientStage::first_byte};
    co_return never;
  }
  const std::size_t server = *picked;
  RetrySlot slot(runtime);
  ++state->running;
  UpstreamServerMetrics::add(runtime->metrics(server).hedges_sent);
  Attempt attempt = co_await run_attempt(runtime, server, std::move(request));
  attempt.slot.emplace(std::move(slot));
  if (!attempt.ok() && --state->running > 0) co_await Sleep(kParked);
  co_return attempt;
}

}  // namespace

ProxyHandler::ProxyHandler(ProxySettings settings, std::shared_ptr<UpstreamRuntime> runtime)
    : settings_(std::move(settings)),
      runtime_(std::move(runtime)),
      via_(upstream::via_value(1, 1, upstream::ProxyHeaderOptions().via_name)),
      timeouts_(runtime_->client_timeouts()) {
  // Why the read limit too: first_byte_timeout_ms also bounds the wait between two body pieces.
  timeouts_.first_byte = settings_.first_byte_timeout;
  timeouts_.read = settings_.first_byte_timeout;
}

ClientRequest ProxyHandler::upstream_request(const http::Request& request) const {
  ClientRequest out;
  out.method = request.method;
  out.timeouts = timeouts_;
  // Why only the path here: the server's origin is prefixed per attempt.
  out.url = settings_.strip_prefix.empty()
                ? request.target
                : upstream::rewrite_path(request.target, settings_.strip_prefix, settings_.rewrite_prefix);
  if (out.url.empty() || out.url.front() != '/') out.url.insert(0, "/");
  // Host goes in ClientRequest::host: the client's (pass_host), one set_headers
  // names, or none (the client then writes the upstream server's authority).
  const std::string_view client_host =
      removed("Host") ? std::string_view() : request.headers.get("Host").value_or(std::string_view());
  if (settings_.pass_host) out.host = std::string(client_host);
  // One pass over the client's fields: hop-by-hop, framing and Host are the
  // client's (it frames the body and writes Host itself), Expect was answered
  // here (the body is read as it is sent on), and untrusted forwarding fields
  // are replaced below.
  const upstream::HopByHop hop_by_hop(request.headers);
  const bool trust = settings_.trust_forwarded;
  out.headers.reserve(request.headers.size() + 5 + settings_.set_headers.size());  // + Via and the forwarding four
  for (const http::Headers::Field& field : request.headers) {
    const std::string_view name = field.name;
    if (hop_by_hop(name) || http::iequals(name, "Host") || http::iequals(name, "Content-Length") ||
        http::iequals(name, "Expect") || (!trust && upstream::is_forwarding_field(name)) || removed(name)) {
      continue;
    }
    out.headers.add(name, field.value);
  }
  upstream::ProxyHeaderOptions options;
  options.trust_forwarded = trust;
  upstream::add_forwarding_headers(out.headers, client_host, client_info(request), options);
  for (const auto& [name, value] : settings_.set_headers) {
    if (http::iequals(name, "Host")) {
      out.host = value;
    } else {
      out.headers.set(name, value);
    }
  }
  return out;
}

bool ProxyHandler::removed(std::string_view name) const noexcept {
  for (const std::string& removed : settings_.remove_headers) {
    if (http::iequals(removed, name)) return true;
  }
  return false;
}

Task<void> ProxyHandler::handle(http::Request& request, http::Response& response) {
  if (settings_.total_timeout.count() == 0) {
    co_await serve(request, response);
    co_return;
  }
  const Deadline total = Deadline::after(settings_.total_timeout);
  const Timed<void> served = co_await total.guard(serve(request, response));
  if (!served.timed_out()) co_return;
  if (response.streaming()) {
    response.cut("total_timeout_ms ran out in the middle of the response");
    co_return;
  }
  answer_error(response, 504, "the upstream did not answer within total_timeout_ms");
}

Task<Attempt> ProxyHandler::hedged(std::size_t first, ClientRequest request) {
  auto state = std::make_shared<HedgeState>();
  const std::string key(upstream::hash_key(runtime_->config(), "", request.url, request.headers));
  ClientRequest first_request = request;
  std::vector<Task<Attempt>> racers;
  racers.push_back(first_racer(state, runtime_, first, std::move(first_request)));
  racers.push_back(second_racer(state, runtime_, first, key, std::move(request), settings_.hedge_after));
  RaceResult<Attempt> won = co_await race(std::move(racers));
  if (won.index == 1 && won.value.ok()) UpstreamServerMetrics::add(runtime_->metrics(won.value.server).hedges_won);
  co_return std::move(won.value);
}

Task<void> ProxyHandler::serve(http::Request& request, http::Response& response) {
  upstream::RetryBudget& budget = runtime_->retry_budget();
  budget.begin_request();
  struct EndRequest {
    upstream::RetryBudget& budget;
    ~EndRequest() { budget.end_request(); }
  } end_request{budget};

  const std::optional<std::uint64_t> length = content_length(request.headers);
  const bool has_body = request.headers.contains("Transfer-Encoding") || (length && *length > 0);
  RequestBody body(request.body_reader());
  if (has_body) {
    const bool judged = co_await body.read_ahead();
    if (!judged) co_return;
  }
  // Why: a body streamed once cannot be sent again; a non-idempotent method must not run twice.
  const bool replayable = !has_body && idempotent(request.method);
  const upstream::ClientInfo client = client_info(request);
  const std::string key(upstream::hash_key(runtime_->config(), client.address, request.target, request.headers));

  std::vector<std::size_t> tried;
  std::vector<RetrySlot> slots;
  std::optional<Attempt> last;
  bool refused = false;
  while (static_cast<int>(tried.size()) < settings_.max_tries) {
    const std::optional<std::size_t> server = runtime_->group().pick(key, tried, Scheduler::current().now());
    // Why stop at a server already tried: a retry is for another server (one left is none).
    if (!server || std::find(tried.begin(), tried.end(), *server) != tried.end()) break;
    if (!tried.empty()) {
      if (!budget.try_acquire_retry()) {
        UpstreamServerMetrics::add(runtime_->metrics(*server).budget_refusals);
        refused = true;
        break;
      }
      slots.emplace_back(runtime_);
      UpstreamServerMetrics::add(runtime_->metrics(*server).retries);
    }
    tried.push_back(*server);
    // Why built per attempt, not copied from a first one: most requests make one attempt.
    ClientRequest one = upstream_request(request);
    if (has_body) {
      one.body_source = &body;
      one.body_length = length;
    } else if (!idempotent(request.method)) {
      // Why an empty source: the client replays a request with no source
      // when a kept-alive connection dies before any response byte; a
      // non-idempotent one must never run twice (RFC 9110 §9.2.2), so it
      // goes out as a streamed body of no bytes, which is never replayed.
      one.body_source = &body;
      one.body_length = 0;
    }
    std::optional<Attempt> attempt;
    if (settings_.hedge_after.count() > 0 && replayable && runtime_->group().size() > 1) {
      attempt.emplace(co_await hedged(*server, std::move(one)));
      if (attempt->server != *server) tried.push_back(attempt->server);
    } else {
      attempt.emplace(co_await run_attempt(runtime_, *server, std::move(one)));
    }
    bool again = false;
    if (attempt->ok()) {
      const int status = attempt->exchange->status();
      if (status >= 500) runtime_->metrics(attempt->server).count_error(UpstreamServerMetrics::status_5xx);
      again = replayable && settings_.next_upstream.on_status(status);
      if (again) {
        attempt->lease->fail();
        attempt->lease.reset();  // Why now: the next pick must already see this failure
      }
    } else {
      // Why any method may go again after a failed connect: nothing was sent, not a byte of the body either.
      const bool timed_out = attempt->error.kind == ClientErrorKind::timeout;
      again = (replayable || nothing_sent(attempt->error)) &&
              (timed_out ? settings_.next_upstream.timeout : settings_.next_upstream.error);
    }
    last.reset();  // Why first: an earlier answer's connection closes before the next is kept
    last.emplace(std::move(*attempt));
    if (!again) break;
  }
  runtime_->refresh_gauges();
  if (last && last->ok()) {
    co_await forward(*last, request, response);
    co_return;
  }
  if (!last) {
    answer_error(response, 502, refused ? "the upstream's retry budget is spent" : "no upstream server is available");
    co_return;
  }
  answer_error(response, last->error.kind == ClientErrorKind::timeout ? 504 : 502, last->error.message);
}

Task<void> ProxyHandler::forward(Attempt& attempt, const http::Request& request, http::Response& response) {
  ClientExchange& exchange = *attempt.exchange;
  response.status = exchange.status();
  // Why these go: the server frames the body and writes Date and Server itself.
  const upstream::HopByHop hop_by_hop(exchange.headers());
  response.headers.reserve(exchange.headers().size() + 1);
  for (const auto& field : exchange.headers()) {
    const std::string_view name = field.name;
    if (hop_by_hop(name) || http::iequals(name, "Content-Length") || http::iequals(name, "Date") ||
        http::iequals(name, "Server")) {
      continue;
    }
    response.headers.add(name, field.value);
  }
  response.headers.add("Via", via_);
  const std::optional<std::uint64_t> length = content_length(exchange.headers());
  const bool no_body = answer_has_no_body(request, response.status);
  // Why a small sized body is gathered whole: it then goes out with its head
  // in one write, batched with the answers to pipelined requests, and a cut
  // one can still be answered 502; bigger ones stream with back-pressure.
  const bool whole = !no_body && length && *length <= kWholeBodyMax;
  if (length && !whole && !(no_body && !request.is_head())) response.set_content_length(*length);
  if (no_body) {
    // Why read: a bodiless answer (HEAD, 204, 304) ends with its head, and
    // reading that end (no wait: the parser needs no more bytes) gives the
    // connection back to its pool; dropped unread, it would be closed.
    if (!exchange.finished()) (void)co_await exchange.read();
    co_return;
  }
  if (whole) response.body.reserve(static_cast<std::size_t>(*length));
  UpstreamServerMetrics& metrics = runtime_->metrics(attempt.server);
  if (!whole && settings_.splice) {
    const Spliced spliced = co_await splice_response(attempt, response, metrics);
    if (spliced == Spliced::done) co_return;
  }
  for (;;) {
    // Why no timeout here: the request's read timeout (first_byte_timeout_ms) is the client's.
    const ClientBodyChunk chunk = co_await exchange.read();
    if (chunk.status == ClientBodyChunk::Status::data && whole) {
      response.body.append(chunk.bytes);
      continue;
    }
    if (chunk.status == ClientBodyChunk::Status::data) {
      // Closed: the client is gone; dropping the exchange closes the upstream connection.
      const http::Delivery written = co_await response.write(chunk.bytes);
      if (written == http::Delivery::closed) co_return;
      continue;
    }
    if (chunk.status == ClientBodyChunk::Status::end) co_return;
    if (attempt.lease) attempt.lease->fail();
    metrics.count_error(error_kind(exchange.error()));
    const bool timed_out = exchange.error().kind == ClientErrorKind::timeout;
    const std::string& why = exchange.error().message;
    if (!response.streaming()) {
      answer_error(response, timed_out ? 504 : 502, why);
      co_return;
    }
    // Why cut: the head is out, so only ending the connection tells the client the body is wrong.
    response.cut("the upstream response was cut: " + why);
    co_return;
  }
}

void register_proxy_handler(HandlerRegistry& registry, const std::vector<UpstreamConfig>& upstreams) {
  registry.add("proxy", [&upstreams](const HandlerParams& params) -> std::unique_ptr<Handler> {
    ProxySettings settings = read_proxy_settings(params);
    std::shared_ptr<UpstreamRuntime> runtime =
        ProxyUpstreams::runtime_for(params.worker(), upstreams, settings.upstream);
    if (runtime == nullptr) {
      throw ParamError("upstream", "no upstream called \"" + settings.upstream + "\" in \"upstreams\"");
    }
    return std::make_unique<ProxyHandler>(std::move(settings), std::move(runtime));
  });
}

}  // namespace tiffany::proxy
