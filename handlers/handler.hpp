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
  /// True when `handle` reads the request body itself, as it arrives, with
  /// `co_await request.body_reader().read()`: the server then runs it as soon
  /// as the header section is routed, reads the socket only when it asks
  /// (back-pressure), answers `Expect: 100-continue` on its first read, and
  /// never holds the whole body. False (the default): the whole body is in
  /// `request.body` before `handle` runs. Asked once, when a route is built.
  virtual bool streams_request_body() const noexcept { return false; }
};

}  // namespace tiffany
