// ChannelRelay: what carries a worker's channels beyond the process (Redis), installed by the server.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace tiffany::pubsub {

class WorkerHub;

/// TLS to Redis (its `tls-port`): how its certificate is checked.
struct RedisTls {
  bool verify = true;        // the chain and the name
  std::string ca_file;       // empty: the system's trust store
  std::string server_name;   // empty: the host of the address

  bool operator==(const RedisTls&) const = default;
};

/// Where Redis is, how to log in, how its channels are named, and how a
/// link to it notices a Redis that stopped answering.
struct RedisSettings {
  /// The defaults of the deadlines and the bound (docs/config.md).
  static constexpr std::chrono::milliseconds kDefaultPingInterval{5000};
  static constexpr std::chrono::milliseconds kDefaultTimeout{5000};
  static constexpr std::size_t kMaxQueuedBytes = 8 * 1024 * 1024;

  std::string host;
  std::uint16_t port = 6379;
  std::string prefix = "tiffany.pubsub.";  // Redis channel = prefix + channel
  std::string user;      // empty: AUTH with the password alone (requirepass), if there is one
  std::string password;  // empty: no AUTH (read from `password_file`, never logged)
  std::optional<RedisTls> tls;
  /// An idle connection sends PING this often.
  std::chrono::milliseconds ping_interval = kDefaultPingInterval;
  /// Connecting (with TLS), a write, and the wait for an answer each take at most this long.
  std::chrono::milliseconds timeout = kDefaultTimeout;

  bool operator==(const RedisSettings&) const = default;
  /// "host:port" ("[::1]:6379" for an IPv6 address), for log lines and metrics.
  std::string address() const {
    const bool v6 = host.find(':') != std::string::npos;
    return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
  }
};

/// One worker hub's link to the other instances: every publish goes
/// through it (and comes back to this hub as to everyone); the hub
/// subscribes to the channels it has subscribers for and hears
/// confirmations through WorkerHub::redis_confirmed.
class ChannelRelay {
 public:
  virtual ~ChannelRelay() = default;
  /// False when the message cannot go (the relay is down, or its queue is full).
  virtual bool publish(const std::string& channel, std::string_view data) = 0;
  /// The hub's first subscriber of `channel` came / its last one left.
  virtual void subscribe(const std::string& channel) = 0;
  virtual void unsubscribe(const std::string& channel) = 0;
};

/// Makes and starts `hub`'s relay on the calling worker.
using RelayStarter = std::unique_ptr<ChannelRelay> (*)(const RedisSettings& settings,
                                                       const std::shared_ptr<WorkerHub>& hub);

/// Why a hook: the relay needs the network client, which the SDK's test kit
/// does not carry; the server installs Redis before it builds any handler.
void set_relay_starter(RelayStarter starter) noexcept;
RelayStarter relay_starter() noexcept;

}  // namespace tiffany::pubsub
