// permessage-deflate's negotiation (RFC 7692 §5, §7.1): the client's offers in, our answer out.
#pragma once

#include <optional>
#include <string>

#include <tiffany/http/headers.hpp>
#include <tiffany/http/websocket.hpp>

namespace tiffany::http::websocket {

/// What a connection agreed to, for both directions.
struct DeflateAgreement {
  bool server_context_takeover = false;  // we keep our window between messages
  bool client_context_takeover = false;  // the client keeps its window: we must keep ours for inflating
  int server_window_bits = 15;           // our compressor's window
  int client_window_bits = 15;           // the largest window the client compresses with
  std::string response;                  // the Sec-WebSocket-Extensions value of the 101
};

/// Picks the first offer of permessage-deflate in the request's
/// Sec-WebSocket-Extensions fields that is valid and that we can honour, and
/// answers it per `settings`; nullopt when compression is off or no offer
/// qualifies (the connection then runs uncompressed). An offer with an
/// unknown or repeated parameter, or a window outside 8 to 15, is declined
/// (§7.1: "MUST decline"); one limiting our window to 8 bits is declined too,
/// since zlib's raw deflate cannot use a window that small.
std::optional<DeflateAgreement> negotiate_deflate(const Headers& headers, const WebSocketCompression& settings);

}  // namespace tiffany::http::websocket
