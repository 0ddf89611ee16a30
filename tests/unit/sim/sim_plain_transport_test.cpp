// The server's own accept loop, PlainTransport, idle park and keep-alive hold on the simulated
// network: many clients connect, think for seeded times (some past the hold's window, so their
// connections park), and leave; every request is answered and every connection closes.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include <tiffany/handlers/handler.hpp>
#include <tiffany/reactor/socket_calls.hpp>

#include "server/accept_loop.hpp"
#include "server/http/http_protocol.hpp"
#include "server/transport/connection_tracker.hpp"
#include "server/transport/listener_limits.hpp"
#include "server/transport/plain_transport.hpp"
#include "sim/peers/http1_client.hpp"
#include "sim/world.hpp"

namespace tiffany::sim {
namespace {

using namespace std::chrono_literals;

class NamesTheRequest final : public Handler {
 public:
  Task<void> handle(http::Request& request, http::Response& response) override {
    response.body = "you asked for " + request.path;
    co_return;
  }
};

struct PlainRun {
  RunEnd end;
  std::uint64_t hash;
  ClientTally tally;
  std::size_t open_after;          // connections the tracker still counts once the clients are gone
  std::size_t sockets_after;       // simulated sockets left once the listener closed
  std::size_t foreign_operations;  // I/O that missed the simulation
};

PlainRun run_plain(std::uint64_t seed, int clients, int requests) {
  http::HttpSite site;
  site.router.add({"GET"}, "/*", std::make_shared<NamesTheRequest>());
  World world(seed);
  Host& server = world.add_host("worker 0");
  Host& peers = world.add_host("clients");
  ConnectionTracker tracker(10'000);
  ListenerLimits limits("sim", 10'000, nullptr);
  PlainTransport transport(std::make_unique<HttpProtocol>(site), &tracker);
  const int listener = world.network().listen("10.0.0.1:80");
  JoinHandle<void> accepting = world.spawn(server, accept_loop(listener, transport, tracker, limits));
  ClientTally tally;
  for (int client = 0; client < clients; ++client) {
    const RequestPlan plan = [client](int i) {
      const std::string path = "/c" + std::to_string(client) + "/r" + std::to_string(i);
      return std::pair{path, "you asked for " + path};
    };
    world.spawn(peers, keep_alive_client(world, "10.0.0.1", 80, requests, plan, tally));
  }
  const RunEnd end = world.run();
  // The clients are gone; what is left is the accept loop's wait. Stop it as a drain would.
  {
    Scheduler::CurrentScope scope(*server.scheduler);
    accepting.cancel();
  }
  const RunEnd drained = world.run();
  SocketCalls::current().close(listener);
  return PlainRun{drained == RunEnd::quiet ? end : drained,
                  world.trace().value(),
                  tally,
                  tracker.size(),
                  world.network().open_sockets(),
                  server.reactor->foreign_operations() + peers.reactor->foreign_operations()};
}

TEST(SimPlainTransportTest, ManyKeepAliveClientsAreAnsweredAndEveryConnectionCloses) {
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    const PlainRun run = run_plain(seed, 20, 6);
    // The first run ends with the accept loop alone waiting: the world is waiting, not quiet.
    EXPECT_EQ(run.end, RunEnd::waiting) << "seed " << seed;
    EXPECT_EQ(run.tally.answered, 20 * 6) << "seed " << seed;
    EXPECT_EQ(run.tally.wrong, 0) << "seed " << seed;
    EXPECT_EQ(run.tally.cut, 0) << "seed " << seed;
    EXPECT_EQ(run.tally.finished, 20) << "seed " << seed;
    EXPECT_EQ(run.open_after, 0u) << "seed " << seed;
    EXPECT_EQ(run.sockets_after, 0u) << "seed " << seed;
    EXPECT_EQ(run.foreign_operations, 0u) << "seed " << seed;
  }
}

TEST(SimPlainTransportTest, OneSeedGivesOneTraceHash) {
  EXPECT_EQ(run_plain(42, 10, 4).hash, run_plain(42, 10, 4).hash);
  EXPECT_NE(run_plain(42, 10, 4).hash, run_plain(43, 10, 4).hash);
}

}  // namespace
}  // namespace tiffany::sim
