// proxy: the built-in reverse proxy handler: a request forwarded to an upstream server, both bodies streamed.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <tiffany/handlers/handler.hpp>
#include <tiffany/handlers/handler_params.hpp>
#include <tiffany/handlers/handler_registry.hpp>

#include "handlers/builtin/proxy/proxy_attempt.hpp"
#include "handlers/builtin/proxy/proxy_settings.hpp"
#include "handlers/builtin/proxy/upstream_runtime.hpp"
#include "handlers/engine/client_abort.hpp"

namespace tiffany::proxy {

/// Forwards each request to a server of its upstream (picked by the
/// upstream's balancer, skipping servers down by passive or active health
/// unless all are),
/// the request body piece by piece as it arrives and the response body
/// piece by piece as the client takes it (the body's first piece is read
/// before a server is picked: a malformed body is the client's 400). Answers
/// 502 on a connect or protocol failure, 504 on a timeout, else the
/// upstream's status. A response cut after its head went out makes the
/// handler throw, so the server closes the client connection (never a clean
/// end of a wrong body). Retries (`next_upstream`, `max_tries`) and hedges
/// (`hedge_after_ms`) go to other servers, only for idempotent methods
/// without a body, within the upstream's retry budget. A client that
/// leaves while the proxy waits cancels it (ClientAbortPolicy), its
/// upstream connection closed, unless `ignore_client_abort` is set.
class ProxyHandler final : public Handler, public ClientAbortPolicy {
 public:
  ProxyHandler(ProxySettings settings, std::shared_ptr<UpstreamRuntime> runtime);
  Task<void> handle(http::Request& request, http::Response& response) override;
  bool streams_request_body() const noexcept override { return true; }
  bool cancel_on_client_abort() const noexcept override { return !settings_.ignore_client_abort; }

 private:
  Task<void> serve(http::Request& request, http::Response& response);
  Task<Attempt> hedged(std::size_t first, ClientRequest request);
  Task<void> forward(Attempt& attempt, const http::Request& request, http::Response& response);
  ClientRequest upstream_request(const http::Request& request) const;
  /// True when `name` is one of the route's remove_headers.
  bool removed(std::string_view name) const noexcept;

  ProxySettings settings_;
  std::shared_ptr<UpstreamRuntime> runtime_;
  std::string via_;  // the responses' Via value: the client always speaks HTTP/1.1 upstream
  ClientTimeouts timeouts_;  // the upstream's connect and write limits, this route's first-byte and read
};

/// Registers "proxy", for `upstreams` (the config's; they must outlive the
/// registry): its factory takes the runtime of the route's upstream from the
/// registry in the built-ins' context it is given (HandlerParams::worker(),
/// see ProxyUpstreams; a config check gets a throwaway runtime). An
/// undefined upstream is a ParamError on "upstream".
void register_proxy_handler(HandlerRegistry& registry, const std::vector<UpstreamConfig>& upstreams);

}  // namespace tiffany::proxy
