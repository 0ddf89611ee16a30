// WorkerHub: one worker's pub/sub channels and their subscribers.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "handlers/builtin/pubsub/pubsub_bus.hpp"

namespace tiffany::pubsub {

class Subscriber;

/// The channels of one `pubsub` route on one worker: who is subscribed to
/// what. Publishing delivers to this worker's subscribers at once and hands
/// the message to the bus for the other workers. Single-threaded: the
/// worker's; made on its first request (joining the bus from that thread).
class WorkerHub : public std::enable_shared_from_this<WorkerHub> {
 public:
  explicit WorkerHub(std::shared_ptr<PubSubBus> bus) : bus_(std::move(bus)) {}
  WorkerHub(const WorkerHub&) = delete;
  WorkerHub& operator=(const WorkerHub&) = delete;
  ~WorkerHub();

  /// The hub for `bus_name` on the calling worker, made and joined on first use; `slot` keeps it.
  static WorkerHub& for_this_worker(std::shared_ptr<WorkerHub>& slot, const std::string& bus_name);

  void subscribe(const std::string& channel, Subscriber& subscriber);
  void unsubscribe(const std::string& channel, Subscriber& subscriber);
  /// Publishes `text` (a whole outgoing message) on `channel`: here and on every other worker.
  void publish(const std::string& channel, const std::shared_ptr<const std::string>& text);
  /// Delivers `text` to this worker's subscribers of `channel`.
  void deliver_local(const std::string& channel, const std::shared_ptr<const std::string>& text);
  /// Channels with a subscriber here.
  std::size_t channel_count() const noexcept { return channels_.size(); }

 private:
  std::shared_ptr<PubSubBus> bus_;
  std::unordered_map<std::string, std::vector<Subscriber*>> channels_;
};

}  // namespace tiffany::pubsub
