// WorkerHub: one worker's pub/sub channels and their subscribers.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "handlers/builtin/pubsub/pubsub_bus.hpp"
#include "handlers/builtin/pubsub/redis_link.hpp"

namespace tiffany::pubsub {

class Subscriber;

/// The channels of one `pubsub` route on one worker: who is subscribed to
/// what. Without Redis, publishing delivers to this worker's subscribers at
/// once and hands the message to the bus for the other workers. With Redis,
/// every message goes through it (RedisLink): this worker subscribes in
/// Redis to the channels it has subscribers for, and delivers what Redis
/// sends, whichever instance published it; a subscription is acknowledged
/// to its client once Redis has confirmed it, so a message published
/// anywhere after the acknowledgement reaches it. Single-threaded: the
/// worker's; made on its first request (joining the bus, or starting the
/// link, from that thread).
class WorkerHub : public std::enable_shared_from_this<WorkerHub> {
 public:
  WorkerHub(std::shared_ptr<PubSubBus> bus, std::optional<RedisSettings> redis);
  WorkerHub(const WorkerHub&) = delete;
  WorkerHub& operator=(const WorkerHub&) = delete;
  ~WorkerHub();

  /// The hub on the calling worker, made and started on first use; `slot` keeps it.
  static WorkerHub& for_this_worker(std::shared_ptr<WorkerHub>& slot, const std::string& bus_name,
                                    const std::optional<RedisSettings>& redis);

  /// Subscribes; true when `subscriber` may be told at once, false when
  /// the hub will acknowledge it once Redis confirms the channel.
  bool subscribe(const std::string& channel, Subscriber& subscriber);
  void unsubscribe(const std::string& channel, Subscriber& subscriber);
  /// Publishes `text` (a whole outgoing message) on `channel`, to every
  /// worker (and with Redis, every instance); false when Redis is unreachable.
  bool publish(const std::string& channel, const std::shared_ptr<const std::string>& text);
  /// Delivers `text` to this worker's subscribers of `channel`.
  void deliver_local(const std::string& channel, const std::shared_ptr<const std::string>& text);
  /// The channels with a subscriber here.
  std::vector<std::string> channels() const;
  /// Redis confirmed its subscription to `channel`: the waiting subscribers are told.
  void redis_confirmed(const std::string& channel);
  /// The Redis connection is gone: subscriptions are confirmed again after the reconnect.
  void redis_lost() noexcept { confirmed_.clear(); }

 private:
  std::shared_ptr<PubSubBus> bus_;
  std::unique_ptr<RedisLink> link_;  // with Redis
  std::unordered_map<std::string, std::vector<Subscriber*>> channels_;
  std::set<std::string> confirmed_;                                  // by Redis, this connection
  std::unordered_map<std::string, std::vector<Subscriber*>> awaiting_;  // to be acknowledged on confirmation
};

}  // namespace tiffany::pubsub
