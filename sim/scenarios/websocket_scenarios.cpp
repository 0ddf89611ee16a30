// WebSocket scenarios: echo clients and pub/sub across two workers; every session freed at the end.
#include <optional>
#include <string>

#include "conf/config_loader.hpp"
#include "sim/peers/redis_server.hpp"
#include "sim/peers/websocket_client.hpp"
#include "sim/scenario.hpp"
#include "sim/sim_server.hpp"

namespace tiffany::sim {
namespace {

using namespace std::chrono_literals;

constexpr const char* kListener = "ws";

// Two workers, one listener: a WebSocket echo and a pub/sub endpoint, its
// bus in-process or on Redis (either way a subscriber on one worker hears a
// publisher on the other), pinging every half second so pings meet the
// clients' frames.
std::string server_config(bool redis) {
  return R"({
  "workers": 2,
  "listeners": [ { "name": "ws", "address": "127.0.0.1:8080", "protocol": "http",
    "timeouts": { "header_ms": 2000, "keepalive_ms": 1500 },
    "routes": [
      { "method": "GET", "path": "/echo", "handler": "websocket_echo",
        "with": { "ping_interval_ms": 500, "close_timeout_ms": 1000 } },
      { "method": "GET", "path": "/pubsub", "handler": "pubsub",
        "with": { "ping_interval_ms": 500, "close_timeout_ms": 1000)" +
         std::string(redis ? R"(, "redis": "127.0.0.1:6379")" : "") + R"( } } ] } ]
})";
}

struct Crowd {
  int echoing = 0;
  int leaving = 0;  // echo clients that leave without a close handshake
  int subscribers = 0;
  int publishers = 0;  // one when there are subscribers
  int messages = 0;    // each echo client's, and the publisher's
  int redis_restarts = 0;
  int total() const noexcept { return echoing + leaving + subscribers + publishers; }
};

Crowd spawn_crowd(World& world, SimRedis* redis, WebSocketTally& tally) {
  Crowd crowd;
  crowd.echoing = static_cast<int>(world.random().between(1, 8));
  crowd.leaving = static_cast<int>(world.random().between(0, 3));
  crowd.subscribers = static_cast<int>(world.random().between(0, 6));
  crowd.publishers = crowd.subscribers > 0 ? 1 : 0;
  crowd.messages = static_cast<int>(world.random().between(1, 20));
  Host& clients = world.add_host("ws clients");
  for (int i = 0; i < crowd.echoing + crowd.leaving; ++i) {
    world.spawn(clients,
                websocket_echo_client(world, "127.0.0.1", 8080, "/echo", crowd.messages, i >= crowd.echoing, tally));
  }
  for (int i = 0; i < crowd.subscribers; ++i) {
    world.spawn(clients, websocket_subscriber(world, "127.0.0.1", 8080, "/pubsub", "room", crowd.messages, tally));
  }
  if (crowd.publishers > 0) {
    // With Redis, in some seeds it restarts once every subscriber is in,
    // and the publisher waits until every link is back and subscribed again.
    const bool restart = redis != nullptr && world.random().chance(400'000);
    crowd.redis_restarts = restart ? 1 : 0;
    auto may_publish = [&tally, redis, restart, subscribers = crowd.subscribers, restarted = false]() mutable {
      if (tally.settled < subscribers) return false;
      if (restart && !restarted) {
        redis->drop_connections();
        restarted = true;
      }
      return redis == nullptr || redis->recovered();
    };
    world.spawn(clients, websocket_publisher(world, "127.0.0.1", 8080, "/pubsub", "room", crowd.messages,
                                             std::move(may_publish), tally));
  }
  return crowd;
}

std::string describe(const Crowd& crowd, const WebSocketTally& tally) {
  return std::to_string(tally.echoed) + " echoes to " + std::to_string(crowd.echoing) + " echo and " +
         std::to_string(crowd.leaving) + " leaving clients, " + std::to_string(tally.delivered) + " deliveries to " +
         std::to_string(crowd.subscribers) + " subscribers";
}

// Every echo comes back byte for byte, every subscriber hears every message
// in order (from either worker), every close handshake completes; after the
// drain no connection is open and no session is left in memory.
void websocket(World& world, ScenarioOutcome& outcome) {
  const WebSocketSessionsFreed sessions_freed(kListener);
  std::optional<SimRedis> redis;
  if (world.random().chance(500'000)) redis.emplace(world, "127.0.0.1:6379");
  SimServer server(world, parse_config(server_config(redis.has_value()), "sim-websocket.json"));
  WebSocketTally tally;
  const Crowd crowd = spawn_crowd(world, redis ? &*redis : nullptr, tally);
  const RunEnd served = world.run_until([&] { return tally.ended == crowd.total(); }, 1h);
  outcome.check(served == RunEnd::done, "the clients did not all end within an hour of virtual time");
  outcome.check(tally.upgraded == crowd.total(),
                std::to_string(tally.upgraded) + " of " + std::to_string(crowd.total()) + " upgrades");
  outcome.check(tally.echoed >= crowd.echoing * crowd.messages,
                std::to_string(tally.echoed) + " echoes, fewer than " + std::to_string(crowd.echoing * crowd.messages));
  outcome.check(
      tally.delivered == crowd.subscribers * crowd.messages,
      std::to_string(tally.delivered) + " of " + std::to_string(crowd.subscribers * crowd.messages) + " deliveries");
  outcome.check(tally.wrong == 0, std::to_string(tally.wrong) + " wrong messages");
  outcome.check(tally.cut == 0, std::to_string(tally.cut) + " connections cut");
  outcome.check(tally.closed == crowd.echoing + crowd.subscribers + crowd.publishers,
                std::to_string(tally.closed) + " close handshakes completed");
  drain_and_check(world, server, 5s, outcome);
  sessions_freed.check(outcome);
  outcome.summary = describe(crowd, tally);
  if (redis) {
    outcome.check(
        redis->published() == static_cast<std::uint64_t>(tally.published),
        std::to_string(redis->published()) + " of " + std::to_string(tally.published) + " messages reached Redis");
    redis->stop();
    const RunEnd stopped = world.run_until([&] { return redis->stopped(); }, 1min);
    outcome.check(stopped == RunEnd::done, "the simulated Redis did not stop");
    outcome.summary += crowd.redis_restarts > 0 ? ", through Redis restarted once" : ", through Redis";
  }
}

}  // namespace

void add_websocket_scenarios(std::vector<Scenario>& into) {
  into.push_back({"websocket",
                  "WebSocket echo clients (some leaving without a close), pub/sub subscribers and a publisher "
                  "across two workers, then a drain; every session freed",
                  websocket, 800});
}

}  // namespace tiffany::sim
