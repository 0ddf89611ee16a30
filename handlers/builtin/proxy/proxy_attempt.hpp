// Attempt: one try of a proxied request on one server: the exchange or the error, and the server held until it ends.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <utility>

#include <tiffany/client/http_client.hpp>
#include <tiffany/coro/task.hpp>

#include "handlers/builtin/proxy/upstream_runtime.hpp"

namespace tiffany::proxy {

/// A server lent to one attempt: begin() when made, end(outcome) when
/// destroyed, so least_conn counts and passive health see every attempt,
/// a canceled hedge loser's too (as a success: slowness is not a failure).
class ServerLease {
 public:
  ServerLease(std::shared_ptr<UpstreamRuntime> runtime, std::size_t server);
  ServerLease(ServerLease&& other) noexcept;
  ServerLease& operator=(ServerLease&& other) noexcept;
  ServerLease(const ServerLease&) = delete;
  ~ServerLease();
  void fail() noexcept { failed_ = true; }

 private:
  std::shared_ptr<UpstreamRuntime> runtime_;
  std::size_t server_;
  bool failed_ = false;
};

/// A retry's (or hedge's) slot in the upstream's retry budget, released when destroyed.
class RetrySlot {
 public:
  explicit RetrySlot(std::shared_ptr<UpstreamRuntime> runtime) noexcept : runtime_(std::move(runtime)) {}
  RetrySlot(RetrySlot&& other) noexcept = default;
  RetrySlot& operator=(RetrySlot&& other) noexcept {
    std::swap(runtime_, other.runtime_);  // ours is released when `other` goes
    return *this;
  }
  ~RetrySlot();

 private:
  std::shared_ptr<UpstreamRuntime> runtime_;
};

struct Attempt {
  std::size_t server = 0;
  std::optional<ServerLease> lease;
  std::optional<RetrySlot> slot;  // a hedge's budget slot
  std::optional<ClientExchange> exchange;
  ClientError error;
  bool ok() const noexcept { return exchange.has_value(); }
};

/// Sends `request` (a path: the server's client has its origin as base_url)
/// to `server` and waits for the response head, within the request's own
/// timeouts. Counts the attempt and its latency (to the head) in the
/// server's metrics.
Task<Attempt> run_attempt(std::shared_ptr<UpstreamRuntime> runtime, std::size_t server, ClientRequest request);

/// The metrics error kind of a client error.
UpstreamServerMetrics::Error error_kind(const ClientError& error) noexcept;

}  // namespace tiffany::proxy
