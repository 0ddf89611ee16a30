// WorkerHub: subscribing, publishing here and to the other workers, delivering.
#include "handlers/builtin/pubsub/worker_hub.hpp"

#include <algorithm>

#include <tiffany/coro/scheduler.hpp>

#include "handlers/builtin/pubsub/subscriber.hpp"

namespace tiffany::pubsub {

WorkerHub::WorkerHub(std::shared_ptr<PubSubBus> bus, std::optional<RedisSettings> redis) : bus_(std::move(bus)) {
  if (redis) link_ = std::make_unique<RedisLink>(std::move(*redis), *this);
}

WorkerHub::~WorkerHub() { bus_->leave(this); }

WorkerHub& WorkerHub::for_this_worker(std::shared_ptr<WorkerHub>& slot, const std::string& bus_name,
                                      const std::optional<RedisSettings>& redis) {
  if (!slot) {
    slot = std::make_shared<WorkerHub>(PubSubBus::named(bus_name), redis);
    if (slot->link_) {
      // Why detached: it runs while the worker does; its frame holds the hub.
      Scheduler::current().spawn(RedisLink::run(slot, *slot->link_)).reset();
    } else {
      slot->bus_->join(slot, Scheduler::current().remote_queue());
    }
  }
  return *slot;
}

bool WorkerHub::subscribe(const std::string& channel, Subscriber& subscriber) {
  std::vector<Subscriber*>& subscribers = channels_[channel];
  if (std::find(subscribers.begin(), subscribers.end(), &subscriber) != subscribers.end()) {
    return !link_ || confirmed_.contains(channel) || !awaiting_.contains(channel);
  }
  subscribers.push_back(&subscriber);
  if (!link_) return true;
  if (subscribers.size() == 1) link_->subscribe(channel);
  if (confirmed_.contains(channel)) return true;
  awaiting_[channel].push_back(&subscriber);
  return false;
}

void WorkerHub::unsubscribe(const std::string& channel, Subscriber& subscriber) {
  if (const auto waiting = awaiting_.find(channel); waiting != awaiting_.end()) {
    std::erase(waiting->second, &subscriber);
    if (waiting->second.empty()) awaiting_.erase(waiting);
  }
  const auto found = channels_.find(channel);
  if (found == channels_.end()) return;
  std::erase(found->second, &subscriber);
  if (!found->second.empty()) return;
  channels_.erase(found);
  if (link_) {
    link_->unsubscribe(channel);
    confirmed_.erase(channel);
  }
}

bool WorkerHub::publish(const std::string& channel, const std::shared_ptr<const std::string>& text) {
  if (link_) return link_->publish(channel, *text);  // back to us, as to everyone, through Redis
  deliver_local(channel, text);
  bus_->forward(this, channel, text);
  return true;
}

void WorkerHub::deliver_local(const std::string& channel, const std::shared_ptr<const std::string>& text) {
  const auto found = channels_.find(channel);
  if (found == channels_.end()) return;
  // Why a copy of the list: a delivery may drop a slow subscriber, which unsubscribes it.
  const std::vector<Subscriber*> subscribers = found->second;
  for (Subscriber* subscriber : subscribers) subscriber->offer(text);
}

std::vector<std::string> WorkerHub::channels() const {
  std::vector<std::string> names;
  names.reserve(channels_.size());
  for (const auto& [name, subscribers] : channels_) names.push_back(name);
  return names;
}

void WorkerHub::redis_confirmed(const std::string& channel) {
  if (!channels_.contains(channel)) return;  // unsubscribed since
  confirmed_.insert(channel);
  const auto waiting = awaiting_.find(channel);
  if (waiting == awaiting_.end()) return;
  const std::vector<Subscriber*> told = std::move(waiting->second);
  awaiting_.erase(waiting);
  for (Subscriber* subscriber : told) subscriber->acknowledge("subscribed", channel);
}

}  // namespace tiffany::pubsub
