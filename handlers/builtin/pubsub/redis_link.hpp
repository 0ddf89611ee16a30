// RedisLink: one worker's pub/sub traffic through Redis, so channels span every instance that shares it.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include <tiffany/coro/scheduler.hpp>
#include <tiffany/coro/task.hpp>
#include <tiffany/coro/wake_signal.hpp>
#include <tiffany/net/byte_stream.hpp>

#include "client/engine/redis/resp_reader.hpp"
#include "handlers/internal/pubsub/channel_relay.hpp"
#include "handlers/internal/redis_metrics.hpp"

namespace tiffany::pubsub {

class WorkerHub;

/// Two connections to Redis for one worker's hub: one in subscribed mode
/// (SUBSCRIBE for each channel with a subscriber here; its messages are
/// delivered to them), one for PUBLISH (replies read and dropped). Our own
/// RESP2 client on the worker's reactor (RespReader), no library: a few
/// commands and their replies are all it needs, and it runs on any
/// ByteStream, TLS included. Each connection is made ready by
/// connect_to_redis (AUTH if configured, and a PING answered).
///
/// A Redis that is gone, or stuck, is dropped: a closed connection, a
/// write that does not finish within settings.timeout (Redis stopped
/// reading), or a command (or PING) left without any answer for that long
/// (Redis stopped answering: SIGSTOP, a hung host). An idle connection
/// sends PING every settings.ping_interval, so a stuck Redis is noticed
/// within ping_interval + timeout even when nothing is published. Then
/// both are closed and reconnected with back-off (100 ms doubling to 5 s);
/// every channel is subscribed again. While it is down, publishing fails
/// and new subscriptions wait. What waits to go is bounded
/// (RedisSettings::kMaxQueuedBytes): a publish past it fails as if Redis
/// were down. Counters in /metrics (RedisMetrics).
/// Single-threaded: the worker's.
class RedisLink final : public ChannelRelay {
 public:
  RedisLink(RedisSettings settings, WorkerHub& hub);
  RedisLink(const RedisLink&) = delete;
  RedisLink& operator=(const RedisLink&) = delete;
  ~RedisLink() override;

  /// Makes `hub`'s link and runs it (run()) while the worker does: the RelayStarter the server installs.
  static std::unique_ptr<ChannelRelay> start(const RedisSettings& settings, const std::shared_ptr<WorkerHub>& hub);
  /// Runs the link until the worker stops: connect, relay, reconnect. Holds `hub` (and through it, this).
  static Task<void> run(std::shared_ptr<WorkerHub> hub, RedisLink& self);

  /// Queues PUBLISH; false once Redis has been lost (until it is back) or
  /// kMaxQueuedBytes wait to go. During the worker's first try to connect,
  /// it waits for that connection.
  bool publish(const std::string& channel, std::string_view text) override;
  /// Queues SUBSCRIBE (the hub's first subscriber of `channel`) or UNSUBSCRIBE (its last left).
  void subscribe(const std::string& channel) override;
  void unsubscribe(const std::string& channel) override;
  bool connected() const noexcept { return connected_; }

 private:
  enum class Connection { subscriber, publisher };
  /// Commands waiting to go on one connection.
  struct Outgoing {
    std::string bytes;
    std::size_t commands = 0;
  };
  /// The answers one connection owes: how many, and since when none came.
  struct Owed {
    std::size_t commands = 0;
    Scheduler::Clock::time_point since{};
  };

  /// One connected period: relays until either connection fails.
  Task<void> relay();
  // The period's four tasks: each connection's replies in, commands out, and the watch.
  /// Reads one connection's replies: the subscriber's messages and
  /// confirmations (on_subscriber_reply), or PUBLISH's counts (dropped;
  /// a refusal logged).
  static Task<void> read_replies(RedisLink& self, Connection which, bool& done);
  static Task<void> write_commands(RedisLink& self, bool& done);
  /// PINGs idle connections and drops the link when an answer is overdue.
  static Task<void> watch(RedisLink& self, bool& done);
  void on_subscriber_reply(const redis::RespValue& reply);
  void queue(Connection to, std::initializer_list<std::string_view> words);
  void answered(Owed& owed);
  void broken(RedisMetrics::Loss why, const std::string& what);
  void set_connected(bool connected);
  /// Tells the metrics what is queued now.
  void count_queued();
  std::size_t queued_bytes() const noexcept {
    return subscriber_out_.bytes.size() + publisher_out_.bytes.size() + writing_bytes_;
  }

  RedisSettings settings_;
  WorkerHub& hub_;
  RedisMetrics& metrics_;  // this worker's row for this Redis
  std::unique_ptr<ByteStream> subscriber_;
  std::unique_ptr<ByteStream> publisher_;
  Outgoing subscriber_out_;  // SUBSCRIBE / UNSUBSCRIBE / PING waiting to go
  Outgoing publisher_out_;   // PUBLISH / PING waiting to go
  std::size_t writing_bytes_ = 0;  // taken from one of them, being written
  std::size_t counted_queued_ = 0;  // what the metrics were last told
  Owed subscriber_owes_;
  Owed publisher_owes_;
  const Owed* writing_owes_ = nullptr;         // the connection a write is going to, if any
  Scheduler::Clock::time_point write_started_{};  // ... since then
  std::unordered_map<std::string, int> unanswered_subscribes_;  // SUBSCRIBEs sent, per channel, not yet answered
  WakeSignal writer_wake_;
  WakeSignal period_over_;  // a task failed or ended: for relay()
  bool connected_ = false;
  bool counted_connected_ = false;     // the metrics' gauge counts this link
  bool ever_relayed_ = false;          // the first connection was made (publishes before it wait for it)
  bool first_attempt_failed_ = false;  // ... unless the first try to make it failed
  bool failed_ = false;        // this connected period is over
  bool reader_done_ = false;   // the period's tasks have ended (see relay())
  bool writer_done_ = false;
  bool drainer_done_ = false;
  bool watcher_done_ = false;
};

}  // namespace tiffany::pubsub
