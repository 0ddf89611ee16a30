// pubsub: accept the WebSocket, start its delivery task, then read commands until it closes.
#include "handlers/builtin/pubsub/pubsub_handler.hpp"

#include <picojson.h>

#include <optional>
#include <utility>

#include <tiffany/coro/scheduler.hpp>
#include <tiffany/handlers/pubsub.hpp>

#include "handlers/builtin/pubsub/redis_link.hpp"
#include "handlers/builtin/pubsub/subscriber.hpp"
#include "handlers/builtin/websocket_params.hpp"
#include "handlers/internal/pubsub/worker_hub.hpp"

namespace tiffany::pubsub {
namespace {

// Ends a client's subscriptions and delivery however the handler ends (a
// cancellation included): nothing may send on the socket once it returns.
class Session {
 public:
  Session(WorkerHub& hub, std::shared_ptr<Subscriber> subscriber, JoinHandle<void> delivery)
      : hub_(hub), subscriber_(std::move(subscriber)), delivery_(std::move(delivery)) {}
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  ~Session() {
    for (const std::string& channel : subscriber_->channels) hub_.unsubscribe(channel, *subscriber_);
    subscriber_->stop();
    delivery_.cancel();  // it holds the subscriber; it unwinds without touching the socket
  }

 private:
  WorkerHub& hub_;
  std::shared_ptr<Subscriber> subscriber_;
  JoinHandle<void> delivery_;
};

}  // namespace

PubSubHandler::PubSubHandler(const HandlerParams& params)
    : options_(websocket_options_from(params)),
      max_pending_(static_cast<std::size_t>(params.integer_or("max_pending", 256, 1, 1'000'000))),
      max_channels_(static_cast<std::size_t>(params.integer_or("max_channels", 64, 1, 100'000))),
      max_channel_bytes_(static_cast<std::size_t>(params.integer_or("max_channel_bytes", 256, 1, 65'536))),
      bus_(PubSubBus::named(bus_settings_from(params, "default"))) {}

PubSubHandler::~PubSubHandler() = default;

Task<void> PubSubHandler::handle(http::Request& request, http::Response& response) {
  http::WebSocket* socket = co_await http::accept_websocket(request, response, options_);
  if (socket == nullptr) co_return;  // `response` holds the refusal
  WorkerHub& hub = WorkerHub::for_this_worker(hub_, bus_);
  auto subscriber = std::make_shared<Subscriber>(*socket, max_pending_);
  const Session session(hub, subscriber, Scheduler::current().spawn(Subscriber::deliver(subscriber)));
  for (;;) {
    std::optional<http::WebSocketMessage> message = co_await socket->receive();
    if (!message || subscriber->dropped()) break;
    command(*message, hub, *subscriber);
  }
}

void PubSubHandler::command(const http::WebSocketMessage& message, WorkerHub& hub, Subscriber& subscriber) {
  picojson::value parsed;
  const std::string parse_error = picojson::parse(parsed, message.data);
  if (!message.text || !parse_error.empty() || !parsed.is<picojson::object>()) {
    subscriber.acknowledge("error", "expected a JSON object: {\"subscribe\": CHANNEL}, {\"unsubscribe\": CHANNEL} "
                                    "or {\"publish\": CHANNEL, \"data\": ...}");
    return;
  }
  const picojson::object& object = parsed.get<picojson::object>();
  for (const char* verb : {"subscribe", "unsubscribe", "publish"}) {
    const auto found = object.find(verb);
    if (found == object.end()) continue;
    if (!found->second.is<std::string>() || found->second.get<std::string>().empty() ||
        found->second.get<std::string>().size() > max_channel_bytes_) {
      subscriber.acknowledge("error", std::string("\"") + verb + "\" takes a channel name of 1 to " +
                                          std::to_string(max_channel_bytes_) + " bytes");
      return;
    }
    const std::string& channel = found->second.get<std::string>();
    if (verb[0] == 's') {
      if (!subscriber.channels.contains(channel) && subscriber.channels.size() >= max_channels_) {
        subscriber.acknowledge("error", "at most " + std::to_string(max_channels_) + " channels per client");
        return;
      }
      subscriber.channels.insert(channel);
      // Why maybe later: with Redis, once it has confirmed; a message published after the answer is sure to arrive.
      if (hub.subscribe(channel, subscriber)) subscriber.acknowledge("subscribed", channel);
    } else if (verb[0] == 'u') {
      subscriber.channels.erase(channel);
      hub.unsubscribe(channel, subscriber);
      subscriber.acknowledge("unsubscribed", channel);
    } else {
      const auto data = object.find("data");
      picojson::object out;
      out["channel"] = picojson::value(channel);
      out["data"] = data == object.end() ? picojson::value() : data->second;
      const bool sent = hub.publish(Message(channel, picojson::value(std::move(out)).serialize()));
      if (!sent) subscriber.acknowledge("error", "Redis is unreachable: nothing was published; try again");
    }
    return;
  }
  subscriber.acknowledge("error", "expected one of \"subscribe\", \"unsubscribe\", \"publish\"");
}

void register_pubsub_handler(HandlerRegistry& registry) {
  set_relay_starter(&RedisLink::start);
  registry.add("pubsub", [](const HandlerParams& params) -> std::unique_ptr<Handler> {
    return std::make_unique<PubSubHandler>(params);
  });
}

}  // namespace tiffany::pubsub
