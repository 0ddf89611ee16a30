// PubSubBus: the registry of buses by name, and forwarding through the workers' remote queues.
#include "handlers/internal/pubsub/pubsub_bus.hpp"

#include <algorithm>
#include <charconv>
#include <map>
#include <utility>

#include <tiffany/handlers/plugin_logger.hpp>

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
  // `redis`: "host:port" (a name, an IPv4 address, or [an IPv6 one]).
  const std::string address = params.string_or("redis", "");
  if (address.empty()) return settings;
  const std::size_t colon = address.rfind(':');
  unsigned port = 0;
  const char* digits = colon == std::string::npos ? nullptr : address.data() + colon + 1;
  const auto [end, error] = digits == nullptr ? std::from_chars_result{nullptr, std::errc::invalid_argument}
                                              : std::from_chars(digits, address.data() + address.size(), port);
  if (colon == std::string::npos || colon == 0 || error != std::errc() || end != address.data() + address.size() ||
      port == 0 || port > 65535) {
    throw ParamError("redis", "expected \"host:port\" (as \"127.0.0.1:6379\"), got \"" + address + "\"");
  }
  settings.redis_host = address.substr(0, colon);
  if (settings.redis_host.size() > 2 && settings.redis_host.front() == '[' && settings.redis_host.back() == ']') {
    settings.redis_host = settings.redis_host.substr(1, settings.redis_host.size() - 2);
  }
  settings.redis_port = static_cast<std::uint16_t>(port);
  return settings;
}

std::shared_ptr<PubSubBus> PubSubBus::named(const std::string& name, const std::optional<RedisSettings>& redis) {
  static std::mutex registry_mutex;
  static std::map<std::pair<std::string, std::string>, std::weak_ptr<PubSubBus>> registry;
  const std::lock_guard lock(registry_mutex);
  const std::string where = redis ? redis->host + '\n' + std::to_string(redis->port) + '\n' + redis->prefix : "";
  std::weak_ptr<PubSubBus>& slot = registry[{name, where}];
  std::shared_ptr<PubSubBus> bus = slot.lock();
  if (!bus) {
    bus = std::make_shared<PubSubBus>(redis);
    slot = bus;
  }
  return bus;
}

std::shared_ptr<PubSubBus> PubSubBus::named(const BusSettings& settings) {
  std::optional<RedisSettings> redis;
  if (!settings.redis_host.empty()) {
    redis = RedisSettings{settings.redis_host, settings.redis_port, settings.redis_prefix + settings.bus + "."};
  }
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
