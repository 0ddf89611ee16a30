// Handler: the one interface every route target implements, built-in or plugin.
#pragma once

#include <tiffany/coro/task.hpp>
#include <tiffany/http/request.hpp>
#include <tiffany/http/response.hpp>

namespace tiffany {

/// Answers requests for the routes it is mounted on. `handle` is a coroutine:
/// it may co_await anything a task may (Sleep, Spawn, Join, reactor I/O) and
/// either fills `response` (status, headers, body) or streams it with
/// `co_await response.write(...)`.
///
/// Threading and lifetime: one instance serves every request of its route on
/// the worker that built it, possibly several at once (one per connection),
/// so per-request state belongs in the coroutine, not in members. An
/// exception thrown from `handle` becomes a 500 and a log line.
class Handler {
 public:
  virtual ~Handler() = default;
  virtual Task<void> handle(http::Request& request, http::Response& response) = 0;
};

}  // namespace tiffany
