// websocket_options_from: a route's WebSocket params, checked, as WebSocketOptions.
#include "handlers/builtin/websocket_params.hpp"

#include <tiffany/http/headers.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>

namespace tiffany {

http::WebSocketOptions websocket_options_from(const HandlerParams& params) {
  constexpr std::int64_t kMiB = 1024 * 1024;
  constexpr std::int64_t kHour = 3'600'000;
  http::WebSocketOptions options;
  options.max_message_bytes = static_cast<std::size_t>(params.integer_or("max_message_bytes", kMiB, 1, 64 * kMiB));
  options.max_queued_bytes = static_cast<std::size_t>(params.integer_or(
      "max_queued_bytes", std::max<std::int64_t>(kMiB, static_cast<std::int64_t>(options.max_message_bytes)),
      static_cast<std::int64_t>(options.max_message_bytes), 1024 * kMiB));
  options.ping_interval = std::chrono::milliseconds(params.integer_or("ping_interval_ms", 30'000, 0, kHour));
  options.pong_timeout = std::chrono::milliseconds(params.integer_or("pong_timeout_ms", 30'000, 1, kHour));
  options.close_timeout = std::chrono::milliseconds(params.integer_or("close_timeout_ms", 5'000, 1, kHour));
  if (const picojson::value* names = params.json("subprotocols")) {
    const char* expectation = "expected an array of subprotocol names (tokens), most preferred first";
    if (!names->is<picojson::array>()) throw ParamError("subprotocols", expectation);
    for (const picojson::value& name : names->get<picojson::array>()) {
      if (!name.is<std::string>() || !http::is_valid_field_name(name.get<std::string>())) {
        throw ParamError("subprotocols", std::string(expectation) + ", got " + name.serialize());
      }
      options.subprotocols.push_back(name.get<std::string>());
    }
  }
  return options;
}

}  // namespace tiffany
