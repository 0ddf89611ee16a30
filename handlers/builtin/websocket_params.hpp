// WebSocket settings of a built-in handler's route (websocket_echo, and the next ones), read from its params.
#pragma once

#include <tiffany/handlers/handler_params.hpp>
#include <tiffany/http/websocket.hpp>

namespace tiffany {

/// Params, all optional: `max_message_bytes` (1 MiB; 1 to 64 MiB),
/// `ping_interval_ms` (30000; 0: no pings), `pong_timeout_ms` (30000),
/// `close_timeout_ms` (5000), `max_queued_bytes` (1 MiB; at least
/// max_message_bytes), `subprotocols` (an array of names, most preferred first),
/// `compression` (permessage-deflate: true (the default), false, or an object
/// of `context_takeover` (false), `window_bits` (15), `level` (4), `min_bytes`
/// (128)). Throws ParamError for a bad value.
http::WebSocketOptions websocket_options_from(const HandlerParams& params);

}  // namespace tiffany
