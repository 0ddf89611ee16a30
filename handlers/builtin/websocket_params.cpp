// websocket_options_from: a route's WebSocket params, checked, as WebSocketOptions.
#include "handlers/builtin/websocket_params.hpp"

#include <tiffany/http/headers.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace tiffany {
namespace {

// `compression`: true, false, or an object of context_takeover, window_bits, level and min_bytes.
http::WebSocketCompression compression_from(const picojson::value* value) {
  http::WebSocketCompression compression;
  if (value == nullptr) return compression;
  if (value->is<bool>()) {
    compression.enabled = value->get<bool>();
    return compression;
  }
  const char* expectation =
      "expected true, false or an object of \"context_takeover\" (true, false), \"window_bits\" (9 to 15), "
      "\"level\" (1 to 9) and \"min_bytes\" (0 to 1073741824)";
  if (!value->is<picojson::object>()) throw ParamError("compression", expectation);
  // Why a HandlerParams of its own: the same typed accessors, and unknown keys are errors.
  const HandlerParams settings(value->get<picojson::object>(), ".", nullptr, false);
  try {
    compression.context_takeover = settings.boolean_or("context_takeover", false);
    compression.window_bits = static_cast<int>(settings.integer_or("window_bits", 15, 9, 15));
    compression.level = static_cast<int>(settings.integer_or("level", 4, 1, 9));
    compression.min_bytes = static_cast<std::size_t>(settings.integer_or("min_bytes", 128, 0, 1 << 30));
  } catch (const ParamError& error) {
    throw ParamError("compression", std::string(error.what()) + " (" + expectation + ")");
  }
  if (const std::vector<std::string> unknown = settings.unknown_keys(); !unknown.empty()) {
    throw ParamError("compression", "unknown key \"" + unknown.front() + "\": " + expectation);
  }
  return compression;
}

}  // namespace

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
  options.compression = compression_from(params.json("compression"));
  return options;
}

}  // namespace tiffany
