// run_attempt: one request to one server, to its response head, with the server's lease and metrics.
#include "handlers/builtin/proxy/proxy_attempt.hpp"

#include <tiffany/coro/scheduler.hpp>

namespace tiffany::proxy {

ServerLease::ServerLease(std::shared_ptr<UpstreamRuntime> runtime, std::size_t server)
    : runtime_(std::move(runtime)), server_(server) {
  runtime_->group().begin(server_, Scheduler::current().now());
}

ServerLease::ServerLease(ServerLease&& other) noexcept
    : runtime_(std::move(other.runtime_)), server_(other.server_), failed_(other.failed_) {}

ServerLease& ServerLease::operator=(ServerLease&& other) noexcept {
  // Why a swap: ours ends when `other` is destroyed, as it would have.
  std::swap(runtime_, other.runtime_);
  std::swap(server_, other.server_);
  std::swap(failed_, other.failed_);
  return *this;
}

ServerLease::~ServerLease() {
  if (runtime_ == nullptr) return;
  runtime_->end_attempt(server_, failed_ ? upstream::Outcome::failure : upstream::Outcome::success);
}

RetrySlot::~RetrySlot() {
  if (runtime_ != nullptr) runtime_->retry_budget().release_retry();
}

UpstreamServerMetrics::Error error_kind(const ClientError& error) noexcept {
  switch (error.kind) {
    case ClientErrorKind::resolve:
    case ClientErrorKind::connect:
    case ClientErrorKind::tls: return UpstreamServerMetrics::connect;
    case ClientErrorKind::timeout: return UpstreamServerMetrics::timeout;
    case ClientErrorKind::protocol:
    case ClientErrorKind::too_large: return UpstreamServerMetrics::protocol;
    case ClientErrorKind::truncated:
    case ClientErrorKind::closed: return UpstreamServerMetrics::truncated;
    default: return UpstreamServerMetrics::other;
  }
}

Task<Attempt> run_attempt(std::shared_ptr<UpstreamRuntime> runtime, std::size_t server, ClientRequest request) {
  Attempt attempt;
  attempt.server = server;
  attempt.lease.emplace(runtime, server);
  UpstreamServerMetrics& metrics = runtime->metrics(server);
  UpstreamServerMetrics::add(metrics.requests);
  const auto started = Scheduler::current().now();
  ClientResult<ClientExchange> opened = co_await runtime->client(server).open(std::move(request));
  if (opened) {
    attempt.exchange.emplace(std::move(opened.value()));
  } else {
    attempt.error = opened.error();
  }
  metrics.observe_seconds(std::chrono::duration<double>(Scheduler::current().now() - started).count());
  if (!attempt.ok()) {
    metrics.count_error(error_kind(attempt.error));
    attempt.lease->fail();
    attempt.lease.reset();  // Why now: the next pick must already see this failure
  }
  co_return attempt;
}

}  // namespace tiffany::proxy
