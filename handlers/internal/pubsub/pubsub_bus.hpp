// PubSubBus: the process's pub/sub channels across workers: each worker's hub, and how a message reaches the others.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <tiffany/coro/remote_queue.hpp>
#include <tiffany/handlers/handler_params.hpp>
#include <tiffany/handlers/pubsub.hpp>

#include "handlers/internal/pubsub/channel_relay.hpp"

namespace tiffany::pubsub {

class WorkerHub;

/// Where a route's channels live (see Channels).
struct BusSettings {
  std::string bus = "default";
  std::optional<RedisSettings> redis;  // none: this process only (its prefix is redis_prefix's)
  std::string redis_prefix = "tiffany.pubsub.";
};

/// From a route's params `bus` (`default_bus` when absent), `redis` (see
/// redis_settings_from) and `redis_prefix`; throws ParamError naming the key.
BusSettings bus_settings_from(const HandlerParams& params, const std::string& default_bus);

/// What every worker's hub of one bus shares: its Redis settings, if any,
/// and without Redis the way a message published on one worker reaches the
/// others: through each one's scheduler's RemoteQueue (the reactor's
/// eventfd wakes it), delivered there to that worker's subscribers. The
/// message's body is shared, never copied per worker. A worker that falls
/// kMaxInFlight messages behind (stalled) loses what comes past that, with a
/// warning, rather than the queue growing without bound. Thread-safe.
class PubSubBus {
 public:
  /// Messages handed to one worker and not yet delivered there, at most.
  static constexpr std::size_t kMaxInFlight = 65'536;

  explicit PubSubBus(std::optional<RedisSettings> redis) : redis_(std::move(redis)) {}

  /// The process's bus named `name` on `redis` (or none), made on first
  /// use, kept while anything holds it. Why Redis is part of the key: a
  /// reload may move a bus to another Redis while the old routes still serve.
  static std::shared_ptr<PubSubBus> named(const std::string& name, const std::optional<RedisSettings>& redis);

  /// The bus `settings` name (with their Redis, if any: its channels there
  /// are named redis_prefix + bus + "." + channel, so buses stay apart).
  static std::shared_ptr<PubSubBus> named(const BusSettings& settings);

  const std::optional<RedisSettings>& redis() const noexcept { return redis_; }

  /// `hub`, on the worker whose scheduler owns `queue`, hears of what other hubs publish.
  void join(const std::shared_ptr<WorkerHub>& hub, std::shared_ptr<RemoteQueue> queue);
  void leave(const WorkerHub* hub);
  /// Hands `message` to every hub but `from`, each on its own worker.
  void forward(const WorkerHub* from, const Message& message);
  /// Messages a worker did not get for being kMaxInFlight behind.
  std::uint64_t dropped() const noexcept { return dropped_.load(std::memory_order_relaxed); }

 private:
  struct Member {
    const WorkerHub* hub;
    std::weak_ptr<WorkerHub> alive;
    std::shared_ptr<RemoteQueue> queue;
    std::shared_ptr<std::atomic<std::size_t>> in_flight;  // posted to it, not yet run there
  };
  const std::optional<RedisSettings> redis_;
  std::mutex mutex_;
  std::vector<Member> members_;
  std::atomic<std::uint64_t> dropped_{0};
  std::atomic<bool> dropping_{false};  // warned of this run of drops
};

}  // namespace tiffany::pubsub
