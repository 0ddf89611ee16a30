// ChannelRelay: what carries a worker's channels beyond the process (Redis), installed by the server.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace tiffany::pubsub {

class WorkerHub;

/// Where Redis is, and how its channels are named.
struct RedisSettings {
  std::string host;
  std::uint16_t port = 6379;
  std::string prefix = "tiffany.pubsub.";  // Redis channel = prefix + channel

  bool operator==(const RedisSettings&) const = default;
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
