// next_response_event: the next response parser event of a client connection, reading under the stage timeouts.
#pragma once

#include <tiffany/client/client_error.hpp>
#include <tiffany/coro/task.hpp>

#include "client/internal/client_connection.hpp"
#include "http/engine/response_parser.hpp"

namespace tiffany::detail {

struct ResponseStep {
  http::ResponseParser::Result result{http::ResponseParser::Event::need_more, 0, {}};
  ClientStage timed_out = ClientStage::none;  ///< set: this stage's time ran out (no result)
  int read_error = 0;                         ///< set: the read failed with this errno (no result)
};

/// Feeds the parser what is buffered, reading more while it needs it: each
/// wait is bounded by first_byte (no response byte yet) or read, and the
/// total. At EOF the parser's finish() decides (complete, closed or truncated).
Task<ResponseStep> next_response_event(ClientConnection& connection);

}  // namespace tiffany::detail
