// send_request: writes a request's head and body (whole or streamed) on a client connection under the write timeout.
#pragma once

#include <optional>
#include <string>

#include <tiffany/client/client_error.hpp>
#include <tiffany/client/http_client.hpp>
#include <tiffany/coro/task.hpp>

#include "client/internal/client_connection.hpp"
#include "client/internal/origin_url.hpp"

namespace tiffany::detail {

struct SendResult {
  std::optional<ClientError> error;  ///< unset: all of it was written
  bool connection_lost = false;      ///< the write failed on the connection (it may have been closed while idle)
  bool source_touched = false;       ///< a piece was read from the body source (the request cannot be replayed)
};

/// Writes the head (and a whole body, gathered with it into one write) or
/// streams the body source piece by piece, each piece written before the
/// next is read. Each write waits at most timeouts.write (and the total).
Task<SendResult> send_request(ClientConnection& connection, const ClientRequest& request, const OriginUrl& url,
                              const ClientTimeouts& timeouts, const std::string& what);

}  // namespace tiffany::detail
