// MiddlewareChain: a handler run behind its middleware (a route's chain).
#pragma once

#include <memory>
#include <vector>

#include <tiffany/handlers/middleware/middleware.hpp>

#include "handlers/engine/client_abort.hpp"

namespace tiffany {

/// The middleware of a route (or of a listener, around the routing) and what
/// they lead to. Built only for a non-empty chain: a route without middleware
/// is routed straight to its handler, with no step between.
class MiddlewareChain final : public Handler, public ClientAbortPolicy {
 public:
  /// `inner`: the handler at the end of the chain; null for a listener's
  /// chain, whose end is given to run().
  MiddlewareChain(std::vector<std::unique_ptr<Middleware>> steps, std::shared_ptr<Handler> inner)
      : steps_(std::move(steps)), inner_(std::move(inner)) {}

  Task<void> handle(http::Request& request, http::Response& response) override {
    return run(request, response, *inner_);
  }
  /// A route's chain streams when its handler does; a listener's chain never decides.
  bool streams_request_body() const noexcept override { return inner_ != nullptr && inner_->streams_request_body(); }
  /// A route's chain is canceled when its client leaves if its handler asks to be.
  bool cancel_on_client_abort() const noexcept override {
    return inner_ != nullptr && cancels_on_client_abort(*inner_);
  }
  /// Runs the chain with `terminal` at its end.
  Task<void> run(http::Request& request, http::Response& response, Handler& terminal) const {
    return Next(steps_.data(), steps_.size(), &terminal)(request, response);
  }
  std::size_t size() const noexcept { return steps_.size(); }

 private:
  std::vector<std::unique_ptr<Middleware>> steps_;
  std::shared_ptr<Handler> inner_;
};

}  // namespace tiffany
