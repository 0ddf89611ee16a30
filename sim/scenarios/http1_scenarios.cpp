// HTTP/1.1 scenarios: the configured server with two workers, clients of every kind, then a drain.
#include <string>

#include "conf/config_loader.hpp"
#include "sim/peers/http1_client.hpp"
#include "sim/scenario.hpp"
#include "sim/sim_server.hpp"

namespace tiffany::sim {
namespace {

using namespace std::chrono_literals;

// The server under test, as a user writes it: two workers, one listener, a
// greeting built in and a second route; a short header timeout, so the seeds
// reach it, and the keep-alive timeout the scenario asks for.
std::string server_config(int keepalive_ms) {
  return R"({
  "workers": 2,
  "listeners": [ { "name": "web", "address": "127.0.0.1:8080", "protocol": "http",
    "timeouts": { "header_ms": 2000, "keepalive_ms": )" +
         std::to_string(keepalive_ms) + R"( },
    "routes": [
      { "method": "GET", "path": "/plaintext", "handler": "text", "with": { "body": "Hello, World!" } },
      { "method": "GET", "path": "/about", "handler": "text", "with": { "body": "Tiffany, simulated" } } ] } ]
})";
}

const RequestPlan kPlan = [](int i) {
  return i % 3 == 2 ? std::pair<std::string, std::string>{"/about", "Tiffany, simulated"}
                    : std::pair<std::string, std::string>{"/plaintext", "Hello, World!"};
};

struct Crowd {
  int keep_alive = 0;
  int pipelining = 0;
  int idle = 0;  // stay connected after their requests until the server closes
  int leaving = 0;
  int requests_each = 0;
  int total() const noexcept { return keep_alive + pipelining + idle + leaving; }
  int expected_answers() const noexcept { return (keep_alive + pipelining + idle) * requests_each; }
};

// Spawns the seed's crowd of clients on a host of their own.
Crowd spawn_crowd(World& world, ClientTally& tally) {
  Crowd crowd;
  crowd.keep_alive = static_cast<int>(world.random().between(1, 40));
  crowd.pipelining = static_cast<int>(world.random().between(0, 6));
  crowd.idle = static_cast<int>(world.random().between(0, 10));
  crowd.leaving = static_cast<int>(world.random().between(0, 10));
  crowd.requests_each = static_cast<int>(world.random().between(1, 8));
  Host& clients = world.add_host("clients");
  for (int i = 0; i < crowd.keep_alive; ++i) {
    world.spawn(clients, keep_alive_client(world, "127.0.0.1", 8080, crowd.requests_each, kPlan, tally));
  }
  for (int i = 0; i < crowd.pipelining; ++i) {
    world.spawn(clients, pipelining_client(world, "127.0.0.1", 8080, crowd.requests_each, kPlan, tally));
  }
  for (int i = 0; i < crowd.idle; ++i) {
    world.spawn(clients, idle_client(world, "127.0.0.1", 8080, crowd.requests_each, kPlan, tally));
  }
  for (int i = 0; i < crowd.leaving; ++i) {
    world.spawn(clients,
                leaving_client(world, "127.0.0.1", 8080, "GET /plaintext HTTP/1.1\r\nHost: sim\r\n\r\n", tally));
  }
  return crowd;
}

std::string describe(const Crowd& crowd, const ClientTally& tally) {
  return std::to_string(tally.answered) + " answers to " + std::to_string(crowd.keep_alive) + " keep-alive, " +
         std::to_string(crowd.pipelining) + " pipelining, " + std::to_string(crowd.idle) + " idle and " +
         std::to_string(crowd.leaving) + " leaving clients";
}

// Every client is answered in full (the idle ones closed by the keep-alive
// timeout); then a drain leaves no connection.
void http1(World& world, ScenarioOutcome& outcome) {
  SimServer server(world, parse_config(server_config(1500), "sim-http1.json"));
  ClientTally tally;
  const Crowd crowd = spawn_crowd(world, tally);
  const RunEnd served = world.run_until([&] { return tally.ended == crowd.total(); }, 1h);
  outcome.check(served == RunEnd::done, "the clients did not all end within an hour of virtual time");
  outcome.check(tally.answered == crowd.expected_answers(),
                "answered " + std::to_string(tally.answered) + " of " + std::to_string(crowd.expected_answers()));
  outcome.check(tally.wrong == 0, std::to_string(tally.wrong) + " wrong answers");
  outcome.check(tally.cut == 0, std::to_string(tally.cut) + " connections cut before their answer");
  drain_and_check(world, server, 5s, outcome);
  outcome.summary = describe(crowd, tally);
}

// A drain starts while clients are busy: whatever is answered is right, and
// every connection ends within the grace.
void drain(World& world, ScenarioOutcome& outcome) {
  // Why 30 s: only the drain's own grace can close an idle connection in time
  // (a drain that forgot one would outlast its bound by far).
  SimServer server(world, parse_config(server_config(30'000), "sim-drain.json"));
  ClientTally tally;
  const Crowd crowd = spawn_crowd(world, tally);
  const auto drain_at = std::chrono::milliseconds(world.random().below(400));
  const RunEnd before = world.run_until([&] { return tally.ended == crowd.total(); }, drain_at);
  outcome.check(before == RunEnd::done || before == RunEnd::time_up, "the clients' part ended oddly");
  const auto grace = std::chrono::milliseconds(world.random().between(10, 2'000));
  const auto drain_began = world.elapsed();
  server.drain(grace);
  const RunEnd drained = world.run_until([&] { return server.drained(); }, 1h);
  outcome.check(drained == RunEnd::done, "the drain did not end");
  // The bound docs/operations.md promises: idle connections close at the end
  // of the grace; a request in flight finishes, its head within header_ms
  // (2 s here); a second for the rest (handlers, the network).
  outcome.check(world.elapsed() - drain_began <= grace + 2s + 1s,
                "the drain outlasted its grace and the header timeout");
  outcome.check(server.open_connections() == 0,
                std::to_string(server.open_connections()) + " connections still open after the drain");
  outcome.check(tally.wrong == 0, std::to_string(tally.wrong) + " wrong answers");
  const RunEnd clients = world.run_until([&] { return tally.ended == crowd.total(); }, 1h);
  outcome.check(clients == RunEnd::done, "a client never learned that the server went");
  outcome.summary = describe(crowd, tally) + ", drained " + std::to_string(drain_at.count()) + " ms in";
}

}  // namespace

void add_http1_scenarios(std::vector<Scenario>& into) {
  into.push_back(
      {"http1", "HTTP/1.1 keep-alive, pipelining and leaving clients against two workers, then a drain", http1, 2000});
  into.push_back(
      {"drain", "a drain begun while HTTP/1.1 clients are busy: right answers, every connection ends", drain, 2000});
}

}  // namespace tiffany::sim
