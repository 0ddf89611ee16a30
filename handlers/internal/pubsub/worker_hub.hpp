// WorkerHub: one worker's pub/sub channels of one bus, and their subscribers.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include <tiffany/handlers/pubsub.hpp>

#include "handlers/internal/pubsub/channel_relay.hpp"
#include "handlers/internal/pubsub/listener.hpp"
#include "handlers/internal/pubsub/pubsub_bus.hpp"

namespace tiffany::pubsub {

/// The channels of one bus on one worker (shared by the routes naming it):
/// who is subscribed to what.
/// Without Redis, publishing delivers to this worker's subscribers at once
/// and hands the message to the bus for the other workers. With Redis,
/// every message goes through it (the ChannelRelay): this worker subscribes
/// in Redis to the channels it has subscribers for, and delivers what Redis
/// sends, whichever instance published it; a subscription is confirmed to
/// its listener once Redis has confirmed it, so a message published
/// anywhere after that reaches it. Single-threaded: the worker's; made on
/// its first use there (joining the bus, or starting the relay, from that thread).
class WorkerHub : public std::enable_shared_from_this<WorkerHub> {
 public:
  explicit WorkerHub(std::shared_ptr<PubSubBus> bus) : bus_(std::move(bus)) {}
  WorkerHub(const WorkerHub&) = delete;
  WorkerHub& operator=(const WorkerHub&) = delete;
  ~WorkerHub();

  /// The hub of `bus` on the calling worker (a worker's routes on one bus
  /// share it), made and started on first use; `slot` keeps it.
  static WorkerHub& for_this_worker(std::shared_ptr<WorkerHub>& slot, const std::shared_ptr<PubSubBus>& bus);

  /// Subscribes; true when it is live at once, false when the hub will
  /// call `listener.confirmed(channel)` once Redis confirms it.
  bool subscribe(const std::string& channel, Listener& listener);
  void unsubscribe(const std::string& channel, Listener& listener);
  /// Publishes `message` to every worker (and with Redis, every instance);
  /// false when it cannot go (Redis is unreachable).
  bool publish(const Message& message);
  /// Delivers `message` to this worker's subscribers of its channel.
  void deliver_local(const Message& message);
  /// The channels with a subscriber here.
  std::vector<std::string> channels() const;
  /// Redis confirmed its subscription to `channel`: the waiting listeners are told.
  void redis_confirmed(const std::string& channel);
  /// The Redis connection is gone: subscriptions are confirmed again after the reconnect.
  void redis_lost() noexcept { confirmed_.clear(); }

 private:
  std::shared_ptr<PubSubBus> bus_;
  std::unique_ptr<ChannelRelay> relay_;  // with Redis
  std::unordered_map<std::string, std::vector<Listener*>> channels_;
  std::set<std::string> confirmed_;                                   // by Redis, this connection
  std::unordered_map<std::string, std::vector<Listener*>> awaiting_;  // to be told on confirmation
};

}  // namespace tiffany::pubsub
