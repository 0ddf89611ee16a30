// PubSubBus: the registry of buses by name, and forwarding through the workers' remote queues.
#include "handlers/builtin/pubsub/pubsub_bus.hpp"

#include <algorithm>
#include <map>
#include <utility>

#include "handlers/builtin/pubsub/worker_hub.hpp"

namespace tiffany::pubsub {

std::shared_ptr<PubSubBus> PubSubBus::named(const std::string& name) {
  static std::mutex registry_mutex;
  static std::map<std::string, std::weak_ptr<PubSubBus>> registry;
  const std::lock_guard lock(registry_mutex);
  std::weak_ptr<PubSubBus>& slot = registry[name];
  std::shared_ptr<PubSubBus> bus = slot.lock();
  if (!bus) {
    bus = std::make_shared<PubSubBus>();
    slot = bus;
  }
  return bus;
}

void PubSubBus::join(const std::shared_ptr<WorkerHub>& hub, std::shared_ptr<RemoteQueue> queue) {
  const std::lock_guard lock(mutex_);
  members_.push_back(Member{hub.get(), hub, std::move(queue)});
}

void PubSubBus::leave(const WorkerHub* hub) {
  const std::lock_guard lock(mutex_);
  std::erase_if(members_, [hub](const Member& member) { return member.hub == hub; });
}

void PubSubBus::forward(const WorkerHub* from, const std::string& channel,
                        const std::shared_ptr<const std::string>& text) {
  std::vector<Member> others;
  {
    const std::lock_guard lock(mutex_);
    others.reserve(members_.size());
    for (const Member& member : members_) {
      if (member.hub != from) others.push_back(member);
    }
  }
  // Why outside the lock: a post may wake another thread, which must not wait on us.
  for (const Member& member : others) {
    member.queue->post([hub = member.alive, channel, text] {
      if (const std::shared_ptr<WorkerHub> alive = hub.lock()) alive->deliver_local(channel, text);
    });
  }
}

}  // namespace tiffany::pubsub
