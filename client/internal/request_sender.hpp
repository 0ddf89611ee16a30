// send_request: writes a request's head and body (whole or streamed) on a client connection under the write timeout.
#pragma once

#include <optional>
#include <string>

#include <tiffany/client/client_error.hpp>
#include <tiffany/client/http_client.hpp>
#include <tiffany/coro/task.hpp>

#include "client/internal/client_connection.hpp"
#include "client/internal/origin_url.hpp"
#include "http/engine/request_writer.hpp"

namespace tiffany::detail {

/// A request head written once (before connecting, so a bad field costs no
/// connection) and the framing of the body after it.
struct RequestHead {
  std::string bytes;
  http::RequestFraming framing = http::RequestFraming::none;
  std::uint64_t content_length = 0;
};

/// Builds the head of `request` to `origin` for `target` (origin-form); nullopt with `error` set if a
/// field, the method or the target would not make a valid request.
std::optional<RequestHead> build_request_head(const ClientRequest& request, const OriginUrl& origin,
                                              std::string_view target, std::string& error);

struct SendResult {
  std::optional<ClientError> error;  ///< unset: all of it was written
  bool connection_lost = false;      ///< the write failed on the connection (it may have been closed while idle)
  bool source_touched = false;       ///< a piece was read from the body source (the request cannot be replayed)
};

/// Writes the head (and a whole body, gathered with it into one write) or
/// streams the body source piece by piece, each piece written before the
/// next is read. Each write waits at most timeouts.write (and the total).
Task<SendResult> send_request(ClientConnection& connection, const ClientRequest& request, const RequestHead& head,
                              const ClientTimeouts& timeouts, const std::string& what);

}  // namespace tiffany::detail
