// The server's own accept loop, PlainTransport, idle park and keep-alive hold on the simulated
// network: many clients connect, think for seeded times (some past the hold's window, so their
// connections park), and leave; every request is answered and every connection closes.
#include <gtest/gtest.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include <charconv>
#include <memory>
#include <string>
#include <string_view>

#include <tiffany/coro/sleep.hpp>
#include <tiffany/handlers/handler.hpp>
#include <tiffany/net/socket_stream.hpp>
#include <tiffany/reactor/connect.hpp>
#include <tiffany/reactor/socket_calls.hpp>
#include <tiffany/reactor/unique_fd.hpp>

#include "server/accept_loop.hpp"
#include "server/http/http_protocol.hpp"
#include "server/transport/connection_tracker.hpp"
#include "server/transport/listener_limits.hpp"
#include "server/transport/plain_transport.hpp"
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

struct ClientTally {
  int answered = 0;
  int wrong = 0;
  int finished = 0;
};

// Reads one answer with a Content-Length body from `stream` into `pending`; its body, or nullopt.
Task<std::optional<std::string>> read_answer(SocketStream& stream, std::string& pending) {
  char buffer[4096];
  for (;;) {
    const std::size_t head_end = pending.find("\r\n\r\n");
    if (head_end != std::string::npos) {
      std::size_t length = 0;
      const std::size_t field = pending.find("\r\nContent-Length: ");
      if (field != std::string::npos && field < head_end) {
        std::from_chars(pending.data() + field + 18, pending.data() + head_end, length);
      }
      if (pending.size() >= head_end + 4 + length) {
        std::string body = pending.substr(head_end + 4, length);
        const bool ok = pending.starts_with("HTTP/1.1 200 ");
        pending.erase(0, head_end + 4 + length);
        co_return ok ? std::optional<std::string>(std::move(body)) : std::nullopt;
      }
    }
    const IoResult read = co_await stream.read(buffer, sizeof buffer);
    if (!read || read.bytes() == 0) co_return std::nullopt;
    pending.append(buffer, read.bytes());
  }
}

// One client: connects, sends `requests` requests one at a time with seeded pauses, then closes.
Task<void> keep_alive_client(World& world, int client, int requests, ClientTally& tally) {
  UniqueFd socket(SocketCalls::current().socket(AF_INET, SOCK_STREAM, 0));
  sockaddr_in server{};
  server.sin_family = AF_INET;
  server.sin_port = htons(80);
  inet_pton(AF_INET, "10.0.0.1", &server.sin_addr);
  const IoResult connected = co_await Connect{socket.get(), reinterpret_cast<const sockaddr*>(&server), sizeof server};
  if (!connected) {
    ++tally.wrong;
    co_return;
  }
  SocketStream stream(socket.get());
  std::string pending;
  for (int i = 0; i < requests; ++i) {
    // Why this spread: under 20 ms the connection's task holds it (KeepAliveHold), over it parks.
    co_await Sleep{std::chrono::milliseconds(world.random().below(60))};
    const std::string path = "/c" + std::to_string(client) + "/r" + std::to_string(i);
    const std::string request = "GET " + path + " HTTP/1.1\r\nHost: sim\r\n\r\n";
    const IoResult written = co_await stream.write(request.data(), request.size());
    if (!written) {
      ++tally.wrong;
      co_return;
    }
    const std::optional<std::string> body = co_await read_answer(stream, pending);
    if (body == "you asked for " + path) {
      ++tally.answered;
    } else {
      ++tally.wrong;
    }
  }
  ++tally.finished;
}

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
  for (int client = 0; client < clients; ++client) world.spawn(peers, keep_alive_client(world, client, requests, tally));
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
