// RedisLink: connecting, subscribing again after a reconnect, relaying messages in and PUBLISH out, PING and deadlines.
#include "handlers/builtin/pubsub/redis_link.hpp"

#include <algorithm>
#include <utility>

#include <tiffany/coro/deadline.hpp>
#include <tiffany/coro/sleep.hpp>
#include <tiffany/handlers/plugin_logger.hpp>
#include <tiffany/http/request_context.hpp>

#include "client/engine/redis/resp_command.hpp"
#include "coro/engine/done_mark.hpp"
#include "coro/engine/worker_local.hpp"
#include "handlers/builtin/pubsub/redis_connect.hpp"
#include "handlers/engine/metrics.hpp"
#include "handlers/internal/pubsub/worker_hub.hpp"

namespace tiffany::pubsub {
namespace {

constexpr std::chrono::milliseconds kFirstBackoff{100};
constexpr std::chrono::milliseconds kMaxBackoff{5000};
constexpr std::chrono::milliseconds kShortPeriod{1000};  // a connected period shorter than this backs off
constexpr std::size_t kKeptWriteBuffer = 64 * 1024;      // a bigger one is let go after its write

void log_line(LogLevel level, const std::string& line) {
  if (log_sink().enabled(level)) log_sink().write(level, line);
}

std::string in_time(std::chrono::milliseconds duration) {
  const auto ms = duration.count();
  return "in " + (ms % 1000 == 0 ? std::to_string(ms / 1000) + " s" : std::to_string(ms) + " ms");
}

// This worker's metrics row for `address`: links (buses, reloads) to one Redis share it.
RedisMetrics& metrics_row(const std::string& address) {
  auto& rows = worker_local<std::unordered_map<std::string, RedisMetrics*>>();
  RedisMetrics*& row = rows[address];
  if (row == nullptr) row = &Metrics::instance().add_redis(address);
  return *row;
}

}  // namespace

RedisLink::RedisLink(RedisSettings settings, WorkerHub& hub)
    : settings_(std::move(settings)), hub_(hub), metrics_(metrics_row(settings_.address())) {}

RedisLink::~RedisLink() {
  set_connected(false);
  RedisMetrics::add(metrics_.queued_bytes, -static_cast<std::int64_t>(counted_queued_));
}

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
  const std::string where = self.settings_.address();
  std::chrono::milliseconds backoff = kFirstBackoff;
  bool ever_connected = false;
  std::string last_failure;  // logged once until it changes or a connection is made
  for (;;) {
    RedisConnection subscriber = co_await connect_to_redis(self.settings_);
    RedisConnection publisher;
    if (subscriber.stream) publisher = co_await connect_to_redis(self.settings_);
    if (!subscriber.stream || !publisher.stream) {
      // What waited for the first connection is dropped: it has failed, and publishing is refused from now on.
      if (!self.ever_relayed_) self.publisher_out_ = Outgoing{};
      self.count_queued();
      self.first_attempt_failed_ = true;
      RedisMetrics::add(self.metrics_.connect_failures, std::uint64_t{1});
      const RedisConnection& failure = subscriber.stream ? publisher : subscriber;
      if (failure.error != last_failure) {
        // Why once: a wrong password fails every try the same way; one line says it (the metrics count the tries).
        last_failure = failure.error;
        log_line(failure.settings_problem ? LogLevel::error : LogLevel::warn,
                 std::string("pubsub: cannot ") + (failure.settings_problem ? "use" : "reach") + " Redis at " + where +
                     ": " + failure.error + "; retrying");
      }
      co_await Sleep{backoff};
      backoff = std::min(backoff * 2, kMaxBackoff);
      continue;
    }
    self.subscriber_ = std::move(subscriber.stream);
    self.publisher_ = std::move(publisher.stream);
    RedisMetrics::add(self.metrics_.connects, std::uint64_t{1});
    if (ever_connected || !last_failure.empty()) log_line(LogLevel::notice, "pubsub: connected to Redis at " + where);
    last_failure.clear();
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
  subscriber_out_ = Outgoing{};
  // Why keep it the first time: what was published while the worker's first connection was being
  // made waits for it; after a loss, publishing was refused, and what a broken period left is dropped.
  if (ever_relayed_) publisher_out_ = Outgoing{};
  ever_relayed_ = true;
  count_queued();
  subscriber_owes_ = publisher_owes_ = Owed{};
  unanswered_subscribes_.clear();
  for (const std::string& channel : hub_.channels()) {
    queue(Connection::subscriber, {"SUBSCRIBE", settings_.prefix + channel});
    ++unanswered_subscribes_[channel];
  }
  set_connected(true);
  // Four tasks, one per job; the first to fail ends the period for all.
  // Why their flags are members: when a worker stops, its scheduler destroys
  // the frames left in any order; a flag in this frame could be written after
  // it is gone. The link outlives them (the route's handler holds the hub).
  reader_done_ = writer_done_ = drainer_done_ = watcher_done_ = false;
  JoinHandle<void> reader = Scheduler::current().spawn(read_replies(*this, Connection::subscriber, reader_done_));
  JoinHandle<void> writer = Scheduler::current().spawn(write_commands(*this, writer_done_));
  JoinHandle<void> drainer = Scheduler::current().spawn(read_replies(*this, Connection::publisher, drainer_done_));
  JoinHandle<void> watcher = Scheduler::current().spawn(watch(*this, watcher_done_));
  while (!failed_) co_await period_over_.wait();
  set_connected(false);
  reader.cancel();
  writer.cancel();
  drainer.cancel();
  watcher.cancel();
  // Why wait for all four: they use the connections, which go when this returns.
  while ((!reader_done_ && !reader.finished()) || (!writer_done_ && !writer.finished()) ||
         (!drainer_done_ && !drainer.finished()) || (!watcher_done_ && !watcher.finished())) {
    co_await period_over_.wait();
  }
  // What did not go is lost with the connection (publishing is refused until the next one).
  subscriber_out_ = publisher_out_ = Outgoing{};
  writing_bytes_ = 0;
  writing_owes_ = nullptr;
  count_queued();
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
      self.broken(RedisMetrics::Loss::closed,
                  subscriber ? "the subscriber connection closed" : "the publisher connection closed");
      break;
    }
    reader.feed(input.bytes());
    redis::RespValue reply;
    for (;;) {
      const redis::RespReader::Status status = reader.next(reply);
      if (status == redis::RespReader::Status::value) {
        if (subscriber) {
          self.on_subscriber_reply(reply);
        } else {
          self.answered(self.publisher_owes_);  // PUBLISH's count, or PONG
          if (reply.type == redis::RespValue::Type::error) {
            log_line(LogLevel::warn, "pubsub: Redis refused a PUBLISH: " + reply.text);
          }
        }
        continue;
      }
      if (status == redis::RespReader::Status::error) self.broken(RedisMetrics::Loss::protocol, reader.why());
      break;
    }
  }
}

void RedisLink::on_subscriber_reply(const redis::RespValue& reply) {
  const bool pushed = reply.type == redis::RespValue::Type::array && !reply.elements.empty() &&
                      reply.elements[0].is_string("message");
  if (!pushed) answered(subscriber_owes_);  // a confirmation, PONG (["pong", ""] once subscribed), or a refusal
  if (reply.type == redis::RespValue::Type::error) {
    // Why treat it as losing Redis: the reply does not say which SUBSCRIBE it refuses (an ACL
    // without the channel, say), and a subscriber waiting for it must not wait unseen; this
    // logs why and tries again with back-off.
    broken(RedisMetrics::Loss::refused, "it refused a SUBSCRIBE: " + reply.text);
    return;
  }
  // ["message", channel, text] or ["subscribe", channel, count]
  if (!reply.is_array_of(3) || reply.elements[1].type != redis::RespValue::Type::bulk_string) return;
  const std::string& channel = reply.elements[1].text;
  if (channel.compare(0, settings_.prefix.size(), settings_.prefix) != 0) return;
  const std::string name = channel.substr(settings_.prefix.size());
  if (pushed && reply.elements[2].type == redis::RespValue::Type::bulk_string) {
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

void RedisLink::answered(Owed& owed) {
  if (owed.commands > 0) --owed.commands;
  owed.since = Scheduler::current().now();
}

void RedisLink::broken(RedisMetrics::Loss why, const std::string& what) {
  if (failed_) return;
  failed_ = true;
  connected_ = false;
  metrics_.count_loss(why);
  log_line(LogLevel::warn, "pubsub: lost Redis at " + settings_.address() + ": " + what + "; reconnecting");
  writer_wake_.set();
  period_over_.set();
}

Task<void> RedisLink::write_commands(RedisLink& self, bool& done) {
  const DoneMark mark(done, self.period_over_);
  std::string writing;
  while (!self.failed_) {
    if (self.subscriber_out_.bytes.empty() && self.publisher_out_.bytes.empty()) {
      co_await self.writer_wake_.wait();
      continue;
    }
    for (const bool to_subscriber : {true, false}) {
      Outgoing& out = to_subscriber ? self.subscriber_out_ : self.publisher_out_;
      if (out.bytes.empty() || self.failed_) continue;
      writing.swap(out.bytes);
      out.bytes.clear();
      Owed& owed = to_subscriber ? self.subscriber_owes_ : self.publisher_owes_;
      owed.commands += std::exchange(out.commands, 0);
      // Why the answer clock waits for the write: while bytes are still going, the write's own
      // deadline watches Redis; its answers are owed once they are out (sooner ones are welcome).
      self.writing_owes_ = &owed;
      self.write_started_ = Scheduler::current().now();
      self.writing_bytes_ = writing.size();
      ByteStream& stream = to_subscriber ? *self.subscriber_ : *self.publisher_;
      // Why a deadline: a Redis that stopped reading (or a peer gone without a reset) would
      // otherwise hold every command, and the queues behind them, for as long as TCP keeps trying.
      Deadline deadline = Deadline::after(self.settings_.timeout);
      const Timed<IoResult> wrote = co_await deadline.guard(stream.write(writing.data(), writing.size()));
      self.writing_owes_ = nullptr;
      owed.since = Scheduler::current().now();
      self.writing_bytes_ = 0;
      writing.clear();
      if (writing.capacity() > kKeptWriteBuffer) std::string().swap(writing);
      self.count_queued();
      if (wrote.timed_out()) {
        self.broken(RedisMetrics::Loss::write_timeout, "a write did not finish " + in_time(self.settings_.timeout));
      } else if (!*wrote) {
        self.broken(RedisMetrics::Loss::closed, "a write failed: " + wrote->message());
      }
    }
  }
}

Task<void> RedisLink::watch(RedisLink& self, bool& done) {
  const DoneMark mark(done, self.period_over_);
  const auto timeout = self.settings_.timeout;
  auto next_ping = Scheduler::current().now() + self.settings_.ping_interval;
  while (!self.failed_) {
    const auto now = Scheduler::current().now();
    auto wake = next_ping;
    const char* silent = nullptr;
    for (const Connection which : {Connection::subscriber, Connection::publisher}) {
      const Owed& owed = which == Connection::subscriber ? self.subscriber_owes_ : self.publisher_owes_;
      if (&owed == self.writing_owes_) {
        wake = std::min(wake, self.write_started_ + timeout);  // done or timed out by then: look again
      } else if (owed.commands > 0 && now - owed.since >= timeout) {
        silent = which == Connection::subscriber ? "subscriber" : "publisher";
      } else if (owed.commands > 0) {
        wake = std::min(wake, owed.since + timeout);
      }
    }
    if (silent != nullptr) {
      self.broken(RedisMetrics::Loss::answer_timeout,
                  std::string("no answer on the ") + silent + " connection " + in_time(timeout));
      break;
    }
    if (now >= next_ping) {
      // Why only idle ones: a connection with commands out is watched through their answers.
      if (self.subscriber_owes_.commands == 0 && self.subscriber_out_.bytes.empty()) {
        self.queue(Connection::subscriber, {"PING"});
      }
      if (self.publisher_owes_.commands == 0 && self.publisher_out_.bytes.empty()) {
        self.queue(Connection::publisher, {"PING"});
      }
      next_ping = now + self.settings_.ping_interval;
      wake = std::min(wake, next_ping);
    }
    co_await Sleep{std::max(wake - now, Scheduler::Clock::duration(std::chrono::milliseconds(1)))};
  }
}

void RedisLink::queue(Connection to, std::initializer_list<std::string_view> words) {
  Outgoing& out = to == Connection::subscriber ? subscriber_out_ : publisher_out_;
  redis::append_command(out.bytes, words);
  ++out.commands;
  count_queued();
  writer_wake_.set();
}

void RedisLink::count_queued() {
  const std::size_t now = queued_bytes();
  metrics_.queued(static_cast<std::int64_t>(now) - static_cast<std::int64_t>(counted_queued_));
  counted_queued_ = now;
}

void RedisLink::set_connected(bool connected) {
  connected_ = connected;
  if (connected == counted_connected_) return;
  counted_connected_ = connected;
  RedisMetrics::add(metrics_.connected, std::int64_t{connected ? 1 : -1});
}

bool RedisLink::publish(const std::string& channel, std::string_view text) {
  // Why accept before the first connection: the link starts with the worker's first pub/sub
  // request, so that request (a publish, say) must not find Redis "unreachable".
  const bool connecting_first = !ever_relayed_ && !first_attempt_failed_;
  if ((!connected_ && !connecting_first) || queued_bytes() >= RedisSettings::kMaxQueuedBytes) {
    RedisMetrics::add(metrics_.publishes_refused, std::uint64_t{1});
    return false;
  }
  queue(Connection::publisher, {"PUBLISH", settings_.prefix + channel, text});
  return true;
}

void RedisLink::subscribe(const std::string& channel) {
  if (!connected_) return;  // every channel is subscribed on connecting
  queue(Connection::subscriber, {"SUBSCRIBE", settings_.prefix + channel});
  ++unanswered_subscribes_[channel];
}

void RedisLink::unsubscribe(const std::string& channel) {
  if (!connected_) return;
  queue(Connection::subscriber, {"UNSUBSCRIBE", settings_.prefix + channel});
}

}  // namespace tiffany::pubsub
