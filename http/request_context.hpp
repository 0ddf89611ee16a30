// The task-local values the HTTP server sets for each request it answers.
#pragma once

#include <string>
#include <string_view>

#include <tiffany/coro/task_context.hpp>

namespace tiffany::http {

/// The route a request took: views into the server's routing table, valid
/// while the server runs.
struct RouteInfo {
  std::string_view pattern;  ///< e.g. `/hello/:name`
  std::string_view label;    ///< e.g. `handler "hello.greet" from plugin /opt/p/libhello.so`
};

/// The request's id: its X-Request-Id when that is valid (1 to 128 of
/// `A-Za-z0-9-_.:+/=@`), else 32 hex digits the server made. Set for the task
/// answering the request before its handler runs, so the handler, the tasks
/// it spawns (gather, race, Spawn) and the error-log lines written on its
/// behalf all see it; it is echoed as the response's X-Request-Id and logged
/// in the access log.
inline const ContextVar<std::string> kRequestId{"tiffany.request_id"};

/// The route of the request being answered (unset for 404/405).
inline const ContextVar<RouteInfo> kRoute{"tiffany.route"};

}  // namespace tiffany::http
