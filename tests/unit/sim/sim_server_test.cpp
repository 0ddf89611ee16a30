// The server a config file describes (two workers: WorkerRuntime, accept loops, PlainTransport,
// the text handler) on the simulated network: clients are answered, a drain ends every worker with
// no connection left, and one seed gives one trace hash.
#include "sim/sim_server.hpp"

#include <gtest/gtest.h>

#include <string>

#include "conf/config_loader.hpp"
#include "handlers/engine/metrics.hpp"
#include "sim/peers/http1_client.hpp"

namespace tiffany::sim {
namespace {

using namespace std::chrono_literals;

constexpr const char* kTwoWorkers = R"({
  "workers": 2,
  "listeners": [ { "name": "web", "address": "127.0.0.1:8080", "protocol": "http",
    "routes": [ { "method": "GET", "path": "/plaintext", "handler": "text", "with": { "body": "Hello, World!" } } ] } ]
})";

struct ServerRun {
  RunEnd served;   // how the clients' part ended
  RunEnd drained;  // how the drain ended
  std::uint64_t hash;
  ClientTally tally;
  std::size_t open_after;
  std::size_t sockets_after;
  std::size_t foreign_operations;
};

ServerRun run_server(std::uint64_t seed, int clients, int requests) {
  World world(seed);
  SimServer server(world, parse_config(kTwoWorkers, "sim.json"));
  Host& peers = world.add_host("clients");
  ClientTally tally;
  const RequestPlan plan = [](int) { return std::pair<std::string, std::string>{"/plaintext", "Hello, World!"}; };
  for (int client = 0; client < clients; ++client) {
    world.spawn(peers, keep_alive_client(world, "127.0.0.1", 8080, requests, plan, tally));
  }
  const RunEnd served = world.run_until([&] { return tally.ended == clients; }, 1h);
  server.drain(5s);
  const RunEnd drained = world.run_until([&] { return server.drained(); }, 1h);
  std::size_t foreign = peers.reactor->foreign_operations();
  for (std::size_t w = 0; w < server.workers(); ++w) foreign += server.host(w).reactor->foreign_operations();
  return ServerRun{
      served, drained, world.trace().value(), tally, server.open_connections(), world.network().open_sockets(),
      foreign};
}

TEST(SimServerTest, TheConfiguredServerAnswersEveryClientAndDrainsToNothing) {
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    const ServerRun run = run_server(seed, 30, 5);
    EXPECT_EQ(run.served, RunEnd::done) << "seed " << seed;
    EXPECT_EQ(run.drained, RunEnd::done) << "seed " << seed;
    EXPECT_EQ(run.tally.answered, 30 * 5) << "seed " << seed;
    EXPECT_EQ(run.tally.wrong, 0) << "seed " << seed;
    EXPECT_EQ(run.tally.cut, 0) << "seed " << seed;
    EXPECT_EQ(run.open_after, 0u) << "seed " << seed;
    EXPECT_EQ(run.sockets_after, 0u) << "seed " << seed;  // the listeners closed with the drain
    EXPECT_EQ(run.foreign_operations, 0u) << "seed " << seed;
  }
}

TEST(SimServerTest, OneSeedGivesOneTraceHash) {
  EXPECT_EQ(run_server(7, 10, 3).hash, run_server(7, 10, 3).hash);
  EXPECT_NE(run_server(7, 10, 3).hash, run_server(8, 10, 3).hash);
}

}  // namespace
}  // namespace tiffany::sim
