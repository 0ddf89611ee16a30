// pubsub: channels that carry messages between handlers, across the server's workers and, with Redis, its instances.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include <tiffany/coro/task.hpp>
#include <tiffany/handlers/handler_params.hpp>

namespace tiffany::pubsub {

class WorkerHub;
class SubscriptionState;

/// Where a route's channels live. Routes naming the same `bus` share
/// channels across the process's workers; with `redis` ("host:port") they
/// span every Tiffany instance sharing that Redis (its channels are named
/// `redis_prefix` + ours). Routes naming one bus must agree on its Redis.
struct BusSettings {
  std::string bus = "default";
  std::string redis_host;  // empty: this process only
  std::uint16_t redis_port = 6379;
  std::string redis_prefix = "tiffany.pubsub.";

  /// From a route's params `bus`, `redis` and `redis_prefix` (as the
  /// built-in `pubsub` reads them); throws ParamError naming the key.
  static BusSettings from_params(const HandlerParams& params);
};

/// A message on a channel. Copies share one body: a message fanned out to
/// a thousand subscribers is one string, not a thousand.
class Message {
 public:
  Message(std::string channel, std::string data);
  const std::string& channel() const noexcept;
  const std::string& data() const noexcept;

 private:
  struct Body;
  std::shared_ptr<const Body> body_;
};

/// One route's channels on one worker: keep one in the handler (a handler
/// serves one worker; using it from another throws std::logic_error).
/// Publishing reaches every subscriber of the channel on every worker, and
/// with Redis on every instance, the publisher's own subscriptions too.
class Channels {
 public:
  /// Throws ParamError("redis", ...) when another route named the same bus with another Redis.
  explicit Channels(BusSettings settings);
  Channels(const Channels&) = delete;
  Channels& operator=(const Channels&) = delete;
  ~Channels();

  /// Publishes `data` on `channel`. False when it went nowhere: Redis is
  /// unreachable (until it is back; the message is dropped) or its queue is full.
  bool publish(const std::string& channel, std::string data);

 private:
  friend class Subscription;
  WorkerHub& hub();  // this worker's, made on first use

  struct State;
  std::unique_ptr<State> state_;
};

/// One listener's subscriptions: messages on its channels wait in a queue
/// of at most `max_pending` for next(). A subscriber so slow that more wait
/// is dropped (overflowed(); next() returns nothing) rather than slowing
/// the publishers or growing without bound. Single-threaded: its worker's.
/// Leaves every channel when destroyed.
class Subscription {
 public:
  explicit Subscription(Channels& channels, std::size_t max_pending = 256);
  Subscription(const Subscription&) = delete;
  Subscription& operator=(const Subscription&) = delete;
  ~Subscription();

  /// Subscribes to `channel`; returns once the subscription is live: a
  /// message published anywhere after that reaches it. With Redis that is
  /// once Redis confirms it, which waits while Redis is down; race it with
  /// a deadline to bound the wait. Returns at once when already joined, or
  /// when the subscription is closed or dropped meanwhile.
  Task<void> join(std::string channel);
  /// Unsubscribes; what was queued from `channel` is still delivered.
  void leave(const std::string& channel);
  /// The next message from any joined channel, in publishing order per
  /// publisher; nothing once close()d or dropped. One waiter at a time.
  Task<std::optional<Message>> next();
  /// Leaves every channel and ends next(): for the task relaying messages to stop.
  void close();
  /// Dropped for falling `max_pending` messages behind.
  bool overflowed() const noexcept;
  bool is_joined(const std::string& channel) const;

 private:
  std::unique_ptr<SubscriptionState> state_;
};

}  // namespace tiffany::pubsub
