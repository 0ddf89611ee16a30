// response_error: a ClientError from a failed response step (parser error, timeout, read error).
#pragma once

#include <string>

#include <tiffany/client/client_error.hpp>

#include "client/internal/response_events.hpp"

namespace tiffany::detail {

/// The error a step that is not a usable event stands for; `what` names the request.
ClientError response_error(const ResponseStep& step, const http::ResponseParser& parser, const std::string& what,
                           const ClientConnection& connection);

}  // namespace tiffany::detail
