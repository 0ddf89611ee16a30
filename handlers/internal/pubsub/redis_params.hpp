// redis_params: a route's `redis` setting, "host:port" or an object (address, login, TLS, deadlines), as RedisSettings.
#pragma once

#include <optional>

#include <tiffany/handlers/handler_params.hpp>

#include "handlers/internal/pubsub/channel_relay.hpp"

namespace tiffany::pubsub {

/// `params`'s `redis`: nullopt when absent. The string form is the address
/// alone; the object form is {"address", "user", "password_file", "tls":
/// {"ca_file", "verify", "server_name"}, "ping_interval_ms", "timeout_ms"}.
/// The password is read from its file now (relative to the config's folder),
/// one trailing newline dropped. The prefix is left at its default. Throws
/// ParamError naming the key's path below the route ("redis.tls.ca_file").
std::optional<RedisSettings> redis_settings_from(const HandlerParams& params);

}  // namespace tiffany::pubsub
