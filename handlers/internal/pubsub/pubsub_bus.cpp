// PubSubBus: the registry of buses by name, and forwarding through the workers' remote queues.
#include "handlers/internal/pubsub/pubsub_bus.hpp"

#include <algorithm>
#include <map>
#include <utility>

#include <tiffany/handlers/plugin_logger.hpp>

#include "handlers/internal/pubsub/redis_params.hpp"
#include "handlers/internal/pubsub/worker_hub.hpp"

namespace tiffany::pubsub {
namespace {

void log_line(LogLevel level, const std::string& line) {
  if (log_sink().enabled(level)) log_sink().write(level, line);
}

}  // namespace

BusSettings bus_settings_from(const HandlerParams& params, const std::string& default_bus) {
  BusSettings settings;
  settings.bus = params.string_or("bus", default_bus);
  if (settings.bus.empty()) throw ParamError("bus", "expected a non-empty name");
  settings.redis_prefix = params.string_or("redis_prefix", settings.redis_prefix);
  settings.redis = redis_settings_from(params);
  return settings;
}

std::shared_ptr<PubSubBus> PubSubBus::named(const std::string& name, const std::optional<RedisSettings>& redis) {
  static std::mutex registry_mutex;
  static std::map<std::pair<std::string, std::string>, std::weak_ptr<PubSubBus>> registry;
  const std::lock_guard lock(registry_mutex);
  // Why every setting: a reload that changes the password or the TLS settings gets a bus of its own.
  std::string where;
  if (redis) {
    where = redis->address() + '\n' + redis->prefix + '\n' + redis->user + '\n' + redis->password + '\n' +
            std::to_string(redis->ping_interval.count()) + '\n' + std::to_string(redis->timeout.count());
    if (redis->tls) where += '\n' + std::to_string(redis->tls->verify) + redis->tls->ca_file + '\n' + redis->tls->server_name;
  }
  std::weak_ptr<PubSubBus>& slot = registry[{name, where}];
  std::shared_ptr<PubSubBus> bus = slot.lock();
  if (!bus) {
    bus = std::make_shared<PubSubBus>(redis);
    slot = bus;
  }
  return bus;
}

std::shared_ptr<PubSubBus> PubSubBus::named(const BusSettings& settings) {
  std::optional<RedisSettings> redis = settings.redis;
  if (redis) redis->prefix = settings.redis_prefix + settings.bus + ".";
  return named(settings.bus, redis);
}

void PubSubBus::join(const std::shared_ptr<WorkerHub>& hub, std::shared_ptr<RemoteQueue> queue) {
  const std::lock_guard lock(mutex_);
  members_.push_back(Member{hub.get(), hub, std::move(queue), std::make_shared<std::atomic<std::size_t>>(0)});
}

void PubSubBus::leave(const WorkerHub* hub) {
  const std::lock_guard lock(mutex_);
  std::erase_if(members_, [hub](const Member& member) { return member.hub == hub; });
}

void PubSubBus::forward(const WorkerHub* from, const Message& message) {
  std::vector<Member> others;
  {
    const std::lock_guard lock(mutex_);
    others.reserve(members_.size());
    for (const Member& member : members_) {
      if (member.hub != from) others.push_back(member);
    }
  }
  // Why outside the lock: a post may wake another thread, which must not wait on us.
  bool dropped_any = false;
  for (const Member& member : others) {
    if (member.in_flight->load(std::memory_order_relaxed) >= kMaxInFlight) {
      dropped_any = true;
      dropped_.fetch_add(1, std::memory_order_relaxed);
      if (!dropping_.exchange(true)) {
        log_line(LogLevel::warn, "pubsub: a worker is " + std::to_string(kMaxInFlight) +
                                     " messages behind; what it cannot take now is dropped");
      }
      continue;
    }
    member.in_flight->fetch_add(1, std::memory_order_relaxed);
    const bool posted = member.queue->post([hub = member.alive, in_flight = member.in_flight, message] {
      in_flight->fetch_sub(1, std::memory_order_relaxed);
      if (const std::shared_ptr<WorkerHub> alive = hub.lock()) alive->deliver_local(message);
    });
    if (!posted) member.in_flight->fetch_sub(1, std::memory_order_relaxed);  // that worker is gone
  }
  // The run of drops is over: the next one warns again. (Read first: a store on every publish
  // would bounce the cache line between the workers.)
  if (!dropped_any && dropping_.load(std::memory_order_relaxed)) dropping_.store(false);
}

}  // namespace tiffany::pubsub
