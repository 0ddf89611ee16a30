// WorkerHub: subscribing, publishing here and to the other workers, delivering.
#include "handlers/internal/pubsub/worker_hub.hpp"

#include <algorithm>
#include <stdexcept>

#include <tiffany/coro/scheduler.hpp>

namespace tiffany::pubsub {
namespace {

RelayStarter g_relay_starter = nullptr;

}  // namespace

void set_relay_starter(RelayStarter starter) noexcept { g_relay_starter = starter; }
RelayStarter relay_starter() noexcept { return g_relay_starter; }

WorkerHub::~WorkerHub() { bus_->leave(this); }

WorkerHub& WorkerHub::for_this_worker(std::shared_ptr<WorkerHub>& slot, const std::shared_ptr<PubSubBus>& bus) {
  if (!slot) {
    slot = std::make_shared<WorkerHub>(bus);
    if (bus->redis()) {
      if (g_relay_starter == nullptr) throw std::logic_error("pubsub: a bus on Redis, and no Redis relay installed");
      slot->relay_ = g_relay_starter(*bus->redis(), slot);
    } else {
      slot->bus_->join(slot, Scheduler::current().remote_queue());
    }
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
