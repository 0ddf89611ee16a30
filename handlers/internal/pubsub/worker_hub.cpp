// WorkerHub: subscribing, publishing here and to the other workers, delivering.
#include "handlers/internal/pubsub/worker_hub.hpp"

#include <algorithm>
#include <atomic>
#include <map>
#include <stdexcept>

#include <tiffany/coro/scheduler.hpp>

#include "coro/engine/worker_local.hpp"

namespace tiffany::pubsub {
namespace {

// Why atomic: the server installs it at each (re)load while earlier generations' workers read it.
std::atomic<RelayStarter> g_relay_starter{nullptr};

// This worker's hubs by bus: routes (and plugins) on one bus share one hub, and with Redis its
// two connections. Weak: the handlers that use a hub keep it.
std::map<const PubSubBus*, std::weak_ptr<WorkerHub>>& hubs_of_this_worker() {
  return worker_local<std::map<const PubSubBus*, std::weak_ptr<WorkerHub>>>();
}

}  // namespace

void set_relay_starter(RelayStarter starter) noexcept { g_relay_starter.store(starter); }
RelayStarter relay_starter() noexcept { return g_relay_starter.load(); }

WorkerHub::~WorkerHub() { bus_->leave(this); }

WorkerHub& WorkerHub::for_this_worker(std::shared_ptr<WorkerHub>& slot, const std::shared_ptr<PubSubBus>& bus) {
  if (slot) return *slot;
  std::weak_ptr<WorkerHub>& shared = hubs_of_this_worker()[bus.get()];
  slot = shared.lock();
  if (slot) return *slot;
  slot = std::make_shared<WorkerHub>(bus);
  shared = slot;
  if (bus->redis()) {
    const RelayStarter starter = g_relay_starter.load();
    if (starter == nullptr) throw std::logic_error("pubsub: a bus on Redis, and no Redis relay installed");
    slot->relay_ = starter(*bus->redis(), slot);
  } else {
    bus->join(slot, Scheduler::current().remote_queue());
  }
  return *slot;
}

bool WorkerHub::subscribe(const std::string& channel, Listener& listener) {
  std::vector<Listener*>& listeners = channels_[channel];
  if (std::find(listeners.begin(), listeners.end(), &listener) != listeners.end()) {
    return !relay_ || confirmed_.contains(channel) || !awaiting_.contains(channel);
  }
  listeners.push_back(&listener);
  if (!relay_) return true;
  if (listeners.size() == 1) relay_->subscribe(channel);
  if (confirmed_.contains(channel)) return true;
  awaiting_[channel].push_back(&listener);
  return false;
}

void WorkerHub::unsubscribe(const std::string& channel, Listener& listener) {
  if (const auto waiting = awaiting_.find(channel); waiting != awaiting_.end()) {
    std::erase(waiting->second, &listener);
    if (waiting->second.empty()) awaiting_.erase(waiting);
  }
  const auto found = channels_.find(channel);
  if (found == channels_.end()) return;
  std::erase(found->second, &listener);
  if (!found->second.empty()) return;
  channels_.erase(found);
  if (relay_) {
    relay_->unsubscribe(channel);
    confirmed_.erase(channel);
  }
}

bool WorkerHub::publish(const Message& message) {
  if (relay_) return relay_->publish(message.channel(), message.data());  // back to us, as to everyone
  deliver_local(message);
  bus_->forward(this, message);
  return true;
}

void WorkerHub::deliver_local(const Message& message) {
  const auto found = channels_.find(message.channel());
  if (found == channels_.end()) return;
  // Why a copy of the list: a delivery may drop a slow subscriber, which unsubscribes it.
  const std::vector<Listener*> listeners = found->second;
  for (Listener* listener : listeners) listener->offer(message);
}

std::vector<std::string> WorkerHub::channels() const {
  std::vector<std::string> names;
  names.reserve(channels_.size());
  for (const auto& [name, listeners] : channels_) names.push_back(name);
  return names;
}

void WorkerHub::redis_confirmed(const std::string& channel) {
  if (!channels_.contains(channel)) return;  // unsubscribed since
  confirmed_.insert(channel);
  const auto waiting = awaiting_.find(channel);
  if (waiting == awaiting_.end()) return;
  const std::vector<Listener*> told = std::move(waiting->second);
  awaiting_.erase(waiting);
  for (Listener* listener : told) listener->confirmed(channel);
}

}  // namespace tiffany::pubsub
