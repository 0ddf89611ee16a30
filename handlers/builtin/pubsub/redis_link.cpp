// RedisLink: connecting, subscribing again after a reconnect, relaying messages in and PUBLISH out.
#include "handlers/builtin/pubsub/redis_link.hpp"

#include <algorithm>
#include <utility>

#include <tiffany/coro/sleep.hpp>
#include <tiffany/coro/with_timeout.hpp>
#include <tiffany/handlers/plugin_logger.hpp>
#include <tiffany/http/request_context.hpp>
#include <tiffany/net/tcp_connect.hpp>

#include "client/internal/redis/resp_command.hpp"
#include "coro/internal/done_mark.hpp"
#include "handlers/internal/pubsub/worker_hub.hpp"

namespace tiffany::pubsub {
namespace {

constexpr std::size_t kMaxPublishQueue = 8 * 1024 * 1024;
constexpr std::chrono::milliseconds kFirstBackoff{100};
constexpr std::chrono::milliseconds kMaxBackoff{5000};
constexpr std::chrono::milliseconds kWriteTimeout{5000};
constexpr std::chrono::milliseconds kShortPeriod{1000};  // a connected period shorter than this backs off

void log_line(LogLevel level, const std::string& line) {
  if (log_sink().enabled(level)) log_sink().write(level, line);
}

}  // namespace

std::unique_ptr<ChannelRelay> RedisLink::start(const RedisSettings& settings, const std::shared_ptr<WorkerHub>& hub) {
  auto link = std::make_unique<RedisLink>(settings, *hub);
  // Why detached: it runs while the worker does; its frame holds the hub, which owns the link.
  Scheduler::current().spawn(run(hub, *link)).reset();
  return link;
}

Task<void> RedisLink::run(std::shared_ptr<WorkerHub> hub, RedisLink& self) {
  // Why: spawned inside the request that made the hub, it would log that request's id and route forever.
  http::kRequestId.reset();
  http::kRoute.reset();
  const std::string where = self.settings_.host + ":" + std::to_string(self.settings_.port);
  std::chrono::milliseconds backoff = kFirstBackoff;
  bool ever_connected = false;
  for (;;) {
    ConnectOptions options;
    options.timeout = std::chrono::seconds(2);
    ConnectResult subscriber = co_await tcp_connect(self.settings_.host, self.settings_.port, options);
    ConnectResult publisher = ConnectResult(ConnectError{});
    if (subscriber) publisher = co_await tcp_connect(self.settings_.host, self.settings_.port, options);
    if (!subscriber || !publisher) {
      // What waited for the first connection is dropped: it has failed, and publishing is refused from now on.
      if (!self.ever_relayed_) self.publisher_out_.clear();
      self.first_attempt_failed_ = true;
      if (backoff == kFirstBackoff) {  // once per outage, not per try
        log_line(LogLevel::warn, "pubsub: cannot reach Redis at " + where + ": " +
                                     (subscriber ? publisher : subscriber).error().message + "; retrying");
      }
      co_await Sleep{backoff};
      backoff = std::min(backoff * 2, kMaxBackoff);
      continue;
    }
    self.subscriber_ = std::move(subscriber.stream());
    self.publisher_ = std::move(publisher.stream());
    if (ever_connected || backoff != kFirstBackoff) log_line(LogLevel::notice, "pubsub: connected to Redis at " + where);
    ever_connected = true;
    const auto period_began = Scheduler::current().now();
    co_await self.relay();
    self.subscriber_.reset();
    self.publisher_.reset();
    hub->redis_lost();
    // Why back off after a short period too: a Redis that refuses what we ask at once (an ACL)
    // would otherwise be reconnected to, and logged, ten times a second.
    const bool short_lived = Scheduler::current().now() - period_began < kShortPeriod;
    backoff = short_lived ? std::min(backoff * 2, kMaxBackoff) : kFirstBackoff;
    co_await Sleep{backoff};
  }
}

Task<void> RedisLink::relay() {
  failed_ = false;
  subscriber_out_.clear();
  // Why keep it the first time: what was published while the worker's first connection was being
  // made waits for it; after a loss, publishing was refused, and what a broken period left is dropped.
  if (ever_relayed_) publisher_out_.clear();
  ever_relayed_ = true;
  unanswered_subscribes_.clear();
  for (const std::string& channel : hub_.channels()) {
    redis::append_command(subscriber_out_, {"SUBSCRIBE", settings_.prefix + channel});
    ++unanswered_subscribes_[channel];
  }
  connected_ = true;
  // Three tasks, one per job; the first to fail ends the period for all.
  // Why their flags are members: when a worker stops, its scheduler destroys
  // the frames left in any order; a flag in this frame could be written after
  // it is gone. The link outlives them (the route's handler holds the hub).
  reader_done_ = writer_done_ = drainer_done_ = false;
  JoinHandle<void> reader = Scheduler::current().spawn(read_replies(*this, Connection::subscriber, reader_done_));
  JoinHandle<void> writer = Scheduler::current().spawn(write_commands(*this, writer_done_));
  JoinHandle<void> drainer = Scheduler::current().spawn(read_replies(*this, Connection::publisher, drainer_done_));
  while (!failed_) co_await period_over_.wait();
  connected_ = false;
  reader.cancel();
  writer.cancel();
  drainer.cancel();
  // Why wait for all three: they use the connections, which go when this returns.
  while ((!reader_done_ && !reader.finished()) || (!writer_done_ && !writer.finished()) ||
         (!drainer_done_ && !drainer.finished())) {
    co_await period_over_.wait();
  }
}

Task<void> RedisLink::read_replies(RedisLink& self, Connection which, bool& done) {
  const DoneMark mark(done, self.period_over_);
  const bool subscriber = which == Connection::subscriber;
  ByteStream& stream = subscriber ? *self.subscriber_ : *self.publisher_;
  redis::RespReader reader;
  while (!self.failed_) {
    ReadLease input;
    const IoResult got = co_await stream.read_pooled(input);
    if (!got || got.bytes() == 0) {
      self.broken(subscriber ? "the subscriber connection closed" : "the publisher connection closed");
      break;
    }
    reader.feed(input.bytes());
    redis::RespValue reply;
    for (;;) {
      const redis::RespReader::Status status = reader.next(reply);
      if (status == redis::RespReader::Status::value) {
        if (subscriber) {
          self.on_subscriber_reply(reply);
        } else if (reply.type == redis::RespValue::Type::error) {
          log_line(LogLevel::warn, "pubsub: Redis refused a PUBLISH: " + reply.text);
        }
        continue;
      }
      if (status == redis::RespReader::Status::error) self.broken(reader.why().c_str());
      break;
    }
  }
}

void RedisLink::on_subscriber_reply(const redis::RespValue& reply) {
  if (reply.type == redis::RespValue::Type::error) {
    // Why treat it as losing Redis: the reply does not say which SUBSCRIBE it refuses (an ACL
    // without the channel, say), and a subscriber waiting for it must not wait unseen; this
    // logs why and tries again with back-off.
    broken(("it refused a SUBSCRIBE: " + reply.text).c_str());
    return;
  }
  // ["message", channel, text] or ["subscribe", channel, count]
  if (!reply.is_array_of(3) || reply.elements[1].type != redis::RespValue::Type::bulk_string) return;
  const std::string& channel = reply.elements[1].text;
  if (channel.compare(0, settings_.prefix.size(), settings_.prefix) != 0) return;
  const std::string name = channel.substr(settings_.prefix.size());
  if (reply.elements[0].is_string("message") && reply.elements[2].type == redis::RespValue::Type::bulk_string) {
    hub_.deliver_local(Message(name, reply.elements[2].text));
  } else if (reply.elements[0].is_string("subscribe")) {
    // Why count: after an unsubscribe and a new subscribe of the same channel, the reply to the
    // old SUBSCRIBE comes first, and Redis runs the UNSUBSCRIBE after it; only the last confirms.
    const auto unanswered = unanswered_subscribes_.find(name);
    if (unanswered == unanswered_subscribes_.end()) return;
    if (--unanswered->second > 0) return;
    unanswered_subscribes_.erase(unanswered);
    hub_.redis_confirmed(name);
  }
}

void RedisLink::broken(const char* what) {
  if (failed_) return;
  failed_ = true;
  connected_ = false;
  log_line(LogLevel::warn, std::string("pubsub: lost Redis at ") + settings_.host + ":" +
                               std::to_string(settings_.port) + ": " + what + "; reconnecting");
  writer_wake_.set();
  period_over_.set();
}

Task<void> RedisLink::write_commands(RedisLink& self, bool& done) {
  const DoneMark mark(done, self.period_over_);
  std::string writing;
  while (!self.failed_) {
    if (self.subscriber_out_.empty() && self.publisher_out_.empty()) {
      co_await self.writer_wake_.wait();
      continue;
    }
    for (const bool to_subscriber : {true, false}) {
      std::string& out = to_subscriber ? self.subscriber_out_ : self.publisher_out_;
      if (out.empty() || self.failed_) continue;
      writing.swap(out);
      out.clear();
      ByteStream& stream = to_subscriber ? *self.subscriber_ : *self.publisher_;
      bool stuck = false;
      try {
        // Why a deadline: a Redis that stopped reading (or a peer gone without a reset) would
        // otherwise hold every command, and the queues behind them, for as long as TCP keeps trying.
        const IoResult wrote = co_await with_timeout(stream.write(writing.data(), writing.size()), kWriteTimeout);
        if (!wrote) self.broken("a write failed");
      } catch (const TimeoutError&) {
        stuck = true;  // (no co_await inside a catch block)
      }
      writing.clear();
      if (stuck) self.broken("a write did not finish in 5 s");
    }
  }
}

bool RedisLink::publish(const std::string& channel, std::string_view text) {
  // Why accept before the first connection: the link starts with the worker's first pub/sub
  // request, so that request (a publish, say) must not find Redis "unreachable".
  const bool connecting_first = !ever_relayed_ && !first_attempt_failed_;
  if ((!connected_ && !connecting_first) || publisher_out_.size() > kMaxPublishQueue) return false;
  redis::append_command(publisher_out_, {"PUBLISH", settings_.prefix + channel, text});
  writer_wake_.set();
  return true;
}

void RedisLink::subscribe(const std::string& channel) {
  if (!connected_) return;  // every channel is subscribed on connecting
  redis::append_command(subscriber_out_, {"SUBSCRIBE", settings_.prefix + channel});
  ++unanswered_subscribes_[channel];
  writer_wake_.set();
}

void RedisLink::unsubscribe(const std::string& channel) {
  if (!connected_) return;
  redis::append_command(subscriber_out_, {"UNSUBSCRIBE", settings_.prefix + channel});
  writer_wake_.set();
}

}  // namespace tiffany::pubsub
