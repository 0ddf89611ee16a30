// pubsub: channels that carry messages between handlers, across the server's workers and, with Redis, its instances.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include <tiffany/coro/task.hpp>
#include <tiffany/handlers/handler_params.hpp>

namespace tiffany::pubsub {

class WorkerHub;
class SubscriptionState;

/// A message on a channel. Copies share one body: a message fanned out to
/// a thousand subscribers is one string, not a thousand. Its data is bytes,
/// not necessarily UTF-8 (anything on the bus, or in Redis, may publish):
/// check before sending it as WebSocket text.
class Message {
 public:
  Message(std::string channel, std::string data);
  const std::string& channel() const noexcept;
  const std::string& data() const noexcept;

 private:
  struct Body;
  std::shared_ptr<const Body> body_;
};

/// One route's channels: keep one in the handler (a handler serves one
/// worker). Routes share channels when they name the same bus and the same
/// Redis (or none), the built-in `pubsub` routes too; with Redis, channels
/// are named `redis_prefix` + bus + "." + channel there, so buses stay apart.
/// Publishing reaches every subscriber of the channel on every worker, and
/// with Redis on every instance, the publisher's own subscriptions too.
/// Use it (and make Subscriptions) from handle() or a task of the worker
/// that first used it, never from a constructor or another thread
/// (std::logic_error: there is no worker there to run on).
class Channels {
 public:
  /// The bus a route's params name: `bus` (`default_bus` when absent),
  /// `redis` ("host:port", or {"address", "user", "password_file", "tls",
  /// ...}, docs/config.md: across instances; absent: this process) and
  /// `redis_prefix` ("tiffany.pubsub."). Throws ParamError naming the key.
  explicit Channels(const HandlerParams& params, std::string default_bus = "default");
  /// A bus of this process only.
  explicit Channels(std::string bus);
  Channels(const Channels&) = delete;
  Channels& operator=(const Channels&) = delete;
  ~Channels();

  /// Publishes `data` (any bytes) on `channel`. True when it is on its way
  /// (with Redis: queued for it; a connection lost before it went loses
  /// it); false when it went nowhere: Redis is unreachable (until it is
  /// back) or 8 MiB wait for it already.
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
/// Leaves every channel when destroyed; a task still waiting in next() then
/// gets nothing (cancel and join such tasks first all the same: `race` does).
class Subscription {
 public:
  explicit Subscription(Channels& channels, std::size_t max_pending = 256);
  Subscription(const Subscription&) = delete;
  Subscription& operator=(const Subscription&) = delete;
  ~Subscription();

  /// Subscribes to `channel` and returns once the subscription is live: a
  /// message published anywhere after that reaches it. With Redis that is
  /// once Redis confirms it, which waits while Redis is down: race it with
  /// a deadline to bound the wait. True when live; false when the
  /// subscription was closed or dropped, or the channel left, meanwhile.
  Task<bool> join(std::string channel);
  /// Unsubscribes; what was queued from `channel` is still delivered.
  void leave(const std::string& channel);
  /// The next message from any joined channel, in publishing order per
  /// publisher; nothing once close()d or dropped. One task at a time
  /// (a second waiting at once gets std::logic_error).
  Task<std::optional<Message>> next();
  /// Leaves every channel, drops what is queued, and ends next().
  void close();
  /// Dropped for falling `max_pending` messages behind.
  bool overflowed() const noexcept;
  bool is_joined(const std::string& channel) const;

 private:
  std::shared_ptr<SubscriptionState> state_;  // shared with a next() under way, which may outlive this
};

}  // namespace tiffany::pubsub
