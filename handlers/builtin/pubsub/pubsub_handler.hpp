// pubsub: a WebSocket endpoint where clients subscribe to channels and publish on them, across the process's workers.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include <tiffany/handlers/handler.hpp>
#include <tiffany/handlers/handler_params.hpp>
#include <tiffany/handlers/handler_registry.hpp>
#include <tiffany/http/websocket.hpp>

#include "handlers/internal/pubsub/pubsub_bus.hpp"

namespace tiffany::pubsub {

class WorkerHub;
class Subscriber;

/// The protocol (text messages, JSON objects; docs/http.md "Pub/sub"):
///   {"subscribe": "room"}    -> {"subscribed": "room"}
///   {"unsubscribe": "room"}  -> {"unsubscribed": "room"}
///   {"publish": "room", "data": <any JSON>} -> every subscriber of "room",
///       on any worker, the publisher too if subscribed: {"channel": "room", "data": <the JSON>}
///   anything else            -> {"error": "<what was wrong>"}
/// Params: the WebSocket ones (websocket_options_from), `bus` (the name of
/// the channel space, "default"; routes naming the same bus and Redis share
/// channels, plugins' pubsub::Channels too),
/// `max_pending` (messages waiting for one slow client before it is dropped,
/// 256), `max_channels` (per client, 64), `max_channel_bytes` (256), `redis`
/// ("host:port", or an object with AUTH, TLS and the link's deadlines,
/// redis_settings_from: channels span every instance sharing that Redis,
/// see RedisLink; without it they span this process) and `redis_prefix` (Redis
/// channel names are the prefix, the bus, "." and ours; "tiffany.pubsub."):
/// BusSettings.
/// What it publishes is the whole outgoing JSON: a plugin subscribed to the
/// same bus receives that as a message's data.
class PubSubHandler final : public Handler {
 public:
  explicit PubSubHandler(const HandlerParams& params);
  ~PubSubHandler() override;
  Task<void> handle(http::Request& request, http::Response& response) override;

 private:
  /// Acts on one message from a client (answering an error when it is not a command).
  void command(const http::WebSocketMessage& message, WorkerHub& hub, Subscriber& subscriber);

  http::WebSocketOptions options_;
  std::size_t max_pending_;
  std::size_t max_channels_;
  std::size_t max_channel_bytes_;
  std::shared_ptr<PubSubBus> bus_;
  std::shared_ptr<WorkerHub> hub_;  // this route's on this worker (a handler serves one worker), made on first use
};

/// Adds "pubsub" to `registry` and installs Redis (RedisLink) for every
/// bus naming it, plugins' too (the server does, beside the built-ins).
void register_pubsub_handler(HandlerRegistry& registry);

}  // namespace tiffany::pubsub
