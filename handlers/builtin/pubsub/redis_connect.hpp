// connect_to_redis: one connection to Redis made ready for commands: TCP or TLS, AUTH, and a PING answered.
#pragma once

#include <memory>
#include <string>

#include <tiffany/coro/task.hpp>
#include <tiffany/net/byte_stream.hpp>

#include "handlers/internal/pubsub/channel_relay.hpp"

namespace tiffany::pubsub {

/// A connection ready for commands, or why there is none.
struct RedisConnection {
  std::unique_ptr<ByteStream> stream;
  /// When there is no stream: what failed, for the log ("connecting to
  /// 127.0.0.1:6379: ... Connection refused", "Redis refused AUTH: WRONGPASS ...").
  std::string error;
  /// The failure is one of the settings (TLS, AUTH) rather than of the network: worth an error line.
  bool settings_problem = false;
};

/// Connects to `settings`'s Redis (over TLS when settings.tls), sends AUTH
/// (with the user, when set) if there is a password, then PING, and returns
/// once both are answered. Connecting, the write and the answers each have
/// settings.timeout: a Redis that accepts connections but answers nothing
/// (stopped with SIGSTOP, say) fails here instead of looking connected.
/// Runs on the calling worker; `settings` must outlive the call.
Task<RedisConnection> connect_to_redis(const RedisSettings& settings);

}  // namespace tiffany::pubsub
