// Middleware: a step of a listener's or a route's chain, run around the handler.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>

#include <tiffany/coro/task.hpp>
#include <tiffany/handlers/handler.hpp>
#include <tiffany/handlers/handler_params.hpp>

namespace tiffany {

class Middleware;

/// The rest of the chain after the middleware being run: the next middleware,
/// or at the end the handler (for a listener's chain: the routing and the
/// route's own chain). Cheap to copy (three words); valid while the request
/// is answered.
class Next {
 public:
  Next(const std::unique_ptr<Middleware>* rest, std::size_t count, Handler* terminal) noexcept
      : rest_(rest), count_(count), terminal_(terminal) {}

  /// Runs the rest of the chain: `co_await next(request, response);`.
  Task<void> operator()(http::Request& request, http::Response& response) const;

 private:
  const std::unique_ptr<Middleware>* rest_;
  std::size_t count_;
  Handler* terminal_;
};

/// One step of a chain. `handle` either answers early (fills `response` and
/// returns without calling `next`: a refused login, a CORS preflight, a rate
/// limit) or wraps the rest: edits the request, `co_await next(request,
/// response)`, then edits the response (unless `response.streaming()`: then
/// its head is already sent). It may set request attributes
/// (`request.set_attribute`) for the handler to read.
///
/// Threading and lifetime: like a Handler, one instance per worker serves
/// every request of its listener or route, several at once; per-request state
/// belongs in the coroutine. An exception becomes a 500 and a log line.
class Middleware {
 public:
  virtual ~Middleware() = default;
  virtual Task<void> handle(http::Request& request, http::Response& response, Next next) = 0;
};

/// Builds a Middleware from its entry's settings (every key but `use`);
/// throws ParamError when they are wrong.
using MiddlewareFactory = std::function<std::unique_ptr<Middleware>(const HandlerParams& params)>;

inline Task<void> Next::operator()(http::Request& request, http::Response& response) const {
  // Why not a coroutine: the next step's task is returned as it is, so a
  // chain adds no frame of its own per step.
  if (count_ == 0) return terminal_->handle(request, response);
  return rest_[0]->handle(request, response, Next(rest_ + 1, count_ - 1, terminal_));
}

}  // namespace tiffany
