// pubsub: the SDK's channels and subscriptions, on the worker hubs of handlers/internal/pubsub.
#include <tiffany/handlers/pubsub.hpp>

#include <atomic>
#include <stdexcept>
#include <utility>

#include <tiffany/coro/scheduler.hpp>

#include "handlers/internal/pubsub/pubsub_bus.hpp"
#include "handlers/internal/pubsub/subscription_state.hpp"
#include "handlers/internal/pubsub/worker_hub.hpp"

namespace tiffany::pubsub {

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
  std::atomic<Scheduler*> worker{nullptr};
};

namespace {

std::shared_ptr<PubSubBus> bus_for(const BusSettings& settings) {
  if (settings.redis && relay_starter() == nullptr) {
    throw ParamError("redis", "Redis is not available here (the SDK's test kit has none; the server has)");
  }
  return PubSubBus::named(settings);
}

}  // namespace

Channels::Channels(const HandlerParams& params, std::string default_bus) : state_(std::make_unique<State>()) {
  state_->bus = bus_for(bus_settings_from(params, default_bus));
}

Channels::Channels(std::string bus) : state_(std::make_unique<State>()) {
  if (bus.empty()) throw std::invalid_argument("pubsub::Channels: a bus needs a name");
  BusSettings settings;
  settings.bus = std::move(bus);
  state_->bus = bus_for(settings);
}

Channels::~Channels() = default;

WorkerHub& Channels::hub() {
  Scheduler* current = Scheduler::current_or_null();
  if (current == nullptr) {
    throw std::logic_error("pubsub::Channels used outside a worker: use it from handle() or a task of its worker");
  }
  Scheduler* first = nullptr;
  if (!state_->worker.compare_exchange_strong(first, current) && first != current) {
    throw std::logic_error("pubsub::Channels used on another worker than its first: keep one per handler");
  }
  return WorkerHub::for_this_worker(state_->hub, state_->bus);
}

bool Channels::publish(const std::string& channel, std::string data) {
  return hub().publish(Message(channel, std::move(data)));
}

Subscription::Subscription(Channels& channels, std::size_t max_pending)
    : state_(std::make_shared<SubscriptionState>(channels.hub().shared_from_this(),
                                                 max_pending == 0 ? 1 : max_pending)) {}

Subscription::~Subscription() { state_->end(); }

Task<bool> Subscription::join(std::string channel) {
  const std::shared_ptr<SubscriptionState> state = state_;  // Why a copy: see next()
  const SharedFuture<void> live = state->join(channel);
  co_await live;
  co_return state->is_live(channel);
}

void Subscription::leave(const std::string& channel) { state_->leave(channel); }

Task<std::optional<Message>> Subscription::next() {
  // Why a copy: a task waiting here may be woken by the Subscription's destructor (which
  // ends it) and resume after the Subscription is gone; it must find the state alive.
  const std::shared_ptr<SubscriptionState> state = state_;
  const SubscriptionState::Receiving receiving(*state);  // one next() at a time
  for (;;) {
    std::optional<Message> message = state->take();
    if (message || state->ended()) co_return message;
    co_await state->arrivals().wait();
  }
}

void Subscription::close() { state_->end(); }
bool Subscription::overflowed() const noexcept { return state_->overflowed(); }
bool Subscription::is_joined(const std::string& channel) const { return state_->is_joined(channel); }

}  // namespace tiffany::pubsub
