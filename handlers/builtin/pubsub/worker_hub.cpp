// WorkerHub: subscribing, publishing here and to the other workers, delivering.
#include "handlers/builtin/pubsub/worker_hub.hpp"

#include <algorithm>

#include <tiffany/coro/scheduler.hpp>

#include "handlers/builtin/pubsub/subscriber.hpp"

namespace tiffany::pubsub {

WorkerHub::~WorkerHub() { bus_->leave(this); }

WorkerHub& WorkerHub::for_this_worker(std::shared_ptr<WorkerHub>& slot, const std::string& bus_name) {
  if (!slot) {
    slot = std::make_shared<WorkerHub>(PubSubBus::named(bus_name));
    slot->bus_->join(slot, Scheduler::current().remote_queue());
  }
  return *slot;
}

void WorkerHub::subscribe(const std::string& channel, Subscriber& subscriber) {
  std::vector<Subscriber*>& subscribers = channels_[channel];
  if (std::find(subscribers.begin(), subscribers.end(), &subscriber) == subscribers.end()) {
    subscribers.push_back(&subscriber);
  }
}

void WorkerHub::unsubscribe(const std::string& channel, Subscriber& subscriber) {
  const auto found = channels_.find(channel);
  if (found == channels_.end()) return;
  std::erase(found->second, &subscriber);
  if (found->second.empty()) channels_.erase(found);
}

void WorkerHub::publish(const std::string& channel, const std::shared_ptr<const std::string>& text) {
  deliver_local(channel, text);
  bus_->forward(this, channel, text);
}

void WorkerHub::deliver_local(const std::string& channel, const std::shared_ptr<const std::string>& text) {
  const auto found = channels_.find(channel);
  if (found == channels_.end()) return;
  // Why a copy of the list: a delivery may drop a slow subscriber, which unsubscribes it.
  const std::vector<Subscriber*> subscribers = found->second;
  for (Subscriber* subscriber : subscribers) subscriber->offer(text);
}

}  // namespace tiffany::pubsub
