// The mixed drain: a drain begun while HTTP/1.1, HTTP/2 and WebSocket clients are all busy.
#include <string>

#include "conf/config_loader.hpp"
#include "sim/peers/http1_client.hpp"
#include "sim/peers/http2_client.hpp"
#include "sim/peers/websocket_client.hpp"
#include "sim/scenario.hpp"
#include "sim/sim_server.hpp"

namespace tiffany::sim {
namespace {

using namespace std::chrono_literals;

constexpr const char* kListener = "mixed";

// Two workers, one listener for all three protocols; a 30 s keep-alive
// timeout, so only the drain's grace can close an idle connection in time.
std::string server_config() {
  return R"({
  "workers": 2,
  "listeners": [ { "name": "mixed", "address": "127.0.0.1:8080", "protocol": "http",
    "timeouts": { "header_ms": 2000, "keepalive_ms": 30000 },
    "routes": [
      { "method": "GET", "path": "/plaintext", "handler": "text", "with": { "body": "Hello, World!" } },
      { "method": "POST", "path": "/echo", "handler": "echo" },
      { "method": "GET", "path": "/ws", "handler": "websocket_echo",
        "with": { "ping_interval_ms": 500, "close_timeout_ms": 1000 } } ] } ]
})";
}

struct Crowd {
  int http1 = 0;
  int http2 = 0;
  int websocket = 0;
  int total() const noexcept { return http1 + http2 + websocket; }
};

// Everything any client here gets must be right; ends cut by the drain are
// allowed (a refused or cut stream, a WebSocket closed with 1001).
void mixed_drain(World& world, ScenarioOutcome& outcome) {
  const WebSocketSessionsFreed sessions_freed(kListener);
  SimServer server(world, parse_config(server_config(), "sim-mixed-drain.json"));
  ClientTally http1;
  Http2Tally http2;
  WebSocketTally websocket;
  Crowd crowd;
  crowd.http1 = static_cast<int>(world.random().between(0, 10));
  crowd.http2 = static_cast<int>(world.random().between(0, 6));
  crowd.websocket = static_cast<int>(world.random().between(0, 6));
  Host& clients = world.add_host("mixed clients");
  const RequestPlan http1_plan = [](int) { return std::pair<std::string, std::string>{"/plaintext", "Hello, World!"}; };
  for (int i = 0; i < crowd.http1; ++i) {
    world.spawn(clients, keep_alive_client(world, "127.0.0.1", 8080, static_cast<int>(world.random().between(1, 8)),
                                           http1_plan, http1));
  }
  const std::string upload(static_cast<std::size_t>(world.random().below(20'000)), 'u');
  const Http2Plan http2_plan = [upload](int i) {
    return i % 2 == 0 ? Http2Request{"GET", "/plaintext", "", "Hello, World!"}
                      : Http2Request{"POST", "/echo", upload, upload};
  };
  for (int i = 0; i < crowd.http2; ++i) {
    Http2ClientOptions options;
    options.streams = static_cast<int>(world.random().between(1, 12));
    world.spawn(clients, http2_client(world, "127.0.0.1", 8080, options, http2_plan, http2));
  }
  for (int i = 0; i < crowd.websocket; ++i) {
    world.spawn(clients, websocket_echo_client(world, "127.0.0.1", 8080, "/ws",
                                               static_cast<int>(world.random().between(1, 10)), false, websocket));
  }
  const auto ended = [&] { return http1.ended + http2.ended + websocket.ended == crowd.total(); };
  const auto drain_at = std::chrono::milliseconds(world.random().below(400));
  const RunEnd before_drain = world.run_until(ended, drain_at);
  outcome.check(before_drain == RunEnd::done || before_drain == RunEnd::time_up, "the clients' part ended oddly");
  const auto grace = std::chrono::milliseconds(world.random().between(10, 2'000));
  const auto drain_began = world.elapsed();
  server.drain(grace);
  const RunEnd drained = world.run_until([&] { return server.drained(); }, 1h);
  outcome.check(drained == RunEnd::done, "the drain did not end");
  // docs/operations.md's bound: the grace; a request in flight finishes, its
  // head within header_ms (2 s); a WebSocket's close handshake within
  // close_timeout_ms (1 s); a second for the rest. Why only on a network of
  // real buffers (16 KiB and up): over a window of a few bytes an upload in
  // flight takes a minute to finish, and the drain rightly waits for it
  // (the server's drain_timeout_ms, not simulated here, ends such a wait).
  if (world.network().profile().window >= 16 * 1024) {
    outcome.check(world.elapsed() - drain_began <= grace + 2s + 1s + 1s,
                  "the drain outlasted its grace, the header timeout and the close timeout");
  }
  outcome.check(server.open_connections() == 0,
                std::to_string(server.open_connections()) + " connections still open after the drain");
  const RunEnd clients_ended = world.run_until(ended, 1h);
  outcome.check(clients_ended == RunEnd::done, "a client never learned that the server went");
  outcome.check(http1.wrong == 0, std::to_string(http1.wrong) + " wrong HTTP/1.1 answers");
  outcome.check(http2.wrong == 0, std::to_string(http2.wrong) + " wrong HTTP/2 answers");
  outcome.check(http2.goaway_errors == 0, std::to_string(http2.goaway_errors) + " GOAWAYs with an error");
  outcome.check(websocket.wrong == 0, std::to_string(websocket.wrong) + " wrong WebSocket messages");
  sessions_freed.check(outcome);
  outcome.summary = std::to_string(http1.answered) + " HTTP/1.1 answers, " + std::to_string(http2.answered) +
                    " HTTP/2 answers (" + std::to_string(http2.refused) + " refused, " + std::to_string(http2.cut) +
                    " cut), " + std::to_string(websocket.echoed) + " echoes on " + std::to_string(crowd.websocket) +
                    " WebSockets; drained " + std::to_string(drain_at.count()) + " ms in, grace " +
                    std::to_string(grace.count()) + " ms";
}

}  // namespace

void add_mixed_drain_scenario(std::vector<Scenario>& into) {
  into.push_back({"mixed_drain",
                  "a drain begun while HTTP/1.1, HTTP/2 (uploads too) and WebSocket clients are busy: right answers, "
                  "every connection ends in time, every session freed",
                  mixed_drain, 800});
}

}  // namespace tiffany::sim
