// RedisLink: one worker's pub/sub traffic through Redis, so channels span every instance that shares it.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include <tiffany/coro/scheduler.hpp>
#include <tiffany/coro/task.hpp>
#include <tiffany/coro/wake_signal.hpp>
#include <tiffany/net/byte_stream.hpp>

#include "client/internal/redis/resp_reader.hpp"
#include "handlers/internal/pubsub/channel_relay.hpp"

namespace tiffany::pubsub {

class WorkerHub;

/// Two connections to Redis for one worker's hub: one in subscribed mode
/// (SUBSCRIBE for each channel with a subscriber here; its messages are
/// delivered to them), one for PUBLISH (replies read and dropped). Our own
/// RESP2 client on the worker's reactor (RespReader), no library: two
/// commands and two replies are all it needs, and it runs on any ByteStream.
/// When Redis goes away (or restarts) both are closed and reconnected with
/// back-off (100 ms doubling to 5 s); then every channel is subscribed
/// again. While it is down, publishing fails and new subscriptions wait.
/// A write that does not finish in 5 s (Redis stopped reading) counts as
/// losing it, so the queues behind it stay bounded.
/// Single-threaded: the worker's.
class RedisLink final : public ChannelRelay {
 public:
  RedisLink(RedisSettings settings, WorkerHub& hub) : settings_(std::move(settings)), hub_(hub) {}
  RedisLink(const RedisLink&) = delete;
  RedisLink& operator=(const RedisLink&) = delete;

  /// Makes `hub`'s link and runs it (run()) while the worker does: the RelayStarter the server installs.
  static std::unique_ptr<ChannelRelay> start(const RedisSettings& settings, const std::shared_ptr<WorkerHub>& hub);
  /// Runs the link until the worker stops: connect, relay, reconnect. Holds `hub` (and through it, this).
  static Task<void> run(std::shared_ptr<WorkerHub> hub, RedisLink& self);

  /// Queues PUBLISH; false once Redis has been lost (until it is back) or the queue is over 8 MiB.
  /// During the worker's first try to connect, it waits for that connection.
  bool publish(const std::string& channel, std::string_view text) override;
  /// Queues SUBSCRIBE (the hub's first subscriber of `channel`) or UNSUBSCRIBE (its last left).
  void subscribe(const std::string& channel) override;
  void unsubscribe(const std::string& channel) override;
  bool connected() const noexcept { return connected_; }

 private:
  /// One connected period: relays until either connection fails.
  Task<void> relay();
  // The period's three tasks: each connection's replies in, commands out.
  enum class Connection { subscriber, publisher };
  /// Reads one connection's replies: the subscriber's messages and
  /// confirmations (on_subscriber_reply), or PUBLISH's counts (dropped;
  /// a refusal logged).
  static Task<void> read_replies(RedisLink& self, Connection which, bool& done);
  static Task<void> write_commands(RedisLink& self, bool& done);
  void on_subscriber_reply(const redis::RespValue& reply);
  void broken(const char* what);

  RedisSettings settings_;
  WorkerHub& hub_;
  std::unique_ptr<ByteStream> subscriber_;
  std::unique_ptr<ByteStream> publisher_;
  std::string subscriber_out_;  // SUBSCRIBE / UNSUBSCRIBE waiting to go
  std::unordered_map<std::string, int> unanswered_subscribes_;  // SUBSCRIBEs sent, per channel, not yet answered
  std::string publisher_out_;   // PUBLISH waiting to go
  WakeSignal writer_wake_;
  WakeSignal period_over_;  // a task failed or ended: for relay()
  bool connected_ = false;
  bool ever_relayed_ = false;          // the first connection was made (publishes before it wait for it)
  bool first_attempt_failed_ = false;  // ... unless the first try to make it failed
  bool failed_ = false;        // this connected period is over
  bool reader_done_ = false;   // the period's tasks have ended (see relay())
  bool writer_done_ = false;
  bool drainer_done_ = false;
};

}  // namespace tiffany::pubsub
