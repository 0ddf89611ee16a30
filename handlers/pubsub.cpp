// pubsub: the SDK's channels and subscriptions, on the worker hubs of handlers/internal/pubsub.
#include "handlers/pubsub.hpp"

#include <charconv>
#include <stdexcept>
#include <utility>

#include <tiffany/coro/scheduler.hpp>

#include "handlers/internal/pubsub/pubsub_bus.hpp"
#include "handlers/internal/pubsub/subscription_state.hpp"
#include "handlers/internal/pubsub/worker_hub.hpp"

namespace tiffany::pubsub {

BusSettings BusSettings::from_params(const HandlerParams& params) {
  BusSettings settings;
  settings.bus = params.string_or("bus", "default");
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

struct Message::Body {
  std::string channel;
  std::string data;
};

Message::Message(std::string channel, std::string data)
    : body_(std::make_shared<const Body>(Body{std::move(channel), std::move(data)})) {}
const std::string& Message::channel() const noexcept { return body_->channel; }
const std::string& Message::data() const noexcept { return body_->data; }

struct Channels::State {
  std::shared_ptr<PubSubBus> bus;
  std::shared_ptr<WorkerHub> hub;  // made on first use, on the worker that uses it
  Scheduler* worker = nullptr;
};

Channels::Channels(BusSettings settings) : state_(std::make_unique<State>()) {
  if (!settings.redis_host.empty() && relay_starter() == nullptr) {
    throw ParamError("redis", "Redis is not available here (the SDK's test kit has none; the server has)");
  }
  state_->bus = PubSubBus::named(settings);
}

Channels::~Channels() = default;

WorkerHub& Channels::hub() {
  Scheduler& current = Scheduler::current();
  if (state_->worker == nullptr) state_->worker = &current;
  if (state_->worker != &current) {
    throw std::logic_error("pubsub::Channels used on another worker than its first: keep one per handler");
  }
  return WorkerHub::for_this_worker(state_->hub, state_->bus);
}

bool Channels::publish(const std::string& channel, std::string data) {
  return hub().publish(Message(channel, std::move(data)));
}

Subscription::Subscription(Channels& channels, std::size_t max_pending)
    : state_(std::make_unique<SubscriptionState>(channels.hub().shared_from_this(),
                                                 max_pending == 0 ? 1 : max_pending)) {}

Subscription::~Subscription() = default;

Task<void> Subscription::join(std::string channel) {
  Future<void> live = state_->join(channel);
  co_await std::move(live);
}

void Subscription::leave(const std::string& channel) { state_->leave(channel); }

Task<std::optional<Message>> Subscription::next() {
  for (;;) {
    std::optional<Message> message = state_->take();
    if (message || state_->ended()) co_return message;
    co_await state_->arrivals().wait();
  }
}

void Subscription::close() { state_->end(); }
bool Subscription::overflowed() const noexcept { return state_->overflowed(); }
bool Subscription::is_joined(const std::string& channel) const { return state_->is_joined(channel); }

}  // namespace tiffany::pubsub
