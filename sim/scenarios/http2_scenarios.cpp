// HTTP/2 scenarios: prior-knowledge clients with many streams, resets and small windows against two workers.
#include <string>

#include "conf/config_loader.hpp"
#include "sim/peers/http2_client.hpp"
#include "sim/scenario.hpp"
#include "sim/sim_server.hpp"

namespace tiffany::sim {
namespace {

using namespace std::chrono_literals;

// A body larger than any window a client or the server starts with, with
// numbered lines, so that a lost or repeated frame shows.
std::string big_body() {
  std::string body;
  for (int line = 0; body.size() < 40'000; ++line) body += "line " + std::to_string(line) + " of the big body\n";
  return body;
}

// `text` as a JSON string's contents (the big body's line ends).
std::string json_escaped(const std::string& text) {
  std::string escaped;
  for (const char c : text) escaped += c == '\n' ? std::string("\\n") : std::string(1, c);
  return escaped;
}

// The server under test: two workers, one listener speaking HTTP/1.1 and
// HTTP/2 by prior knowledge, with the seed's stream limit and window.
std::string server_config(World& world, const std::string& big) {
  // Why a short write timeout only over real buffers (a window of 16 KiB and
  // up): there a client that reads is never stalled for 2 s, so a reset or
  // a cut is the server's doing; over a window of a few bytes a client's
  // WINDOW_UPDATE may wait that long behind its own upload, and the reset
  // that follows is right.
  const int write_ms = world.network().profile().window >= 16 * 1024 ? 2000 : 60000;
  const std::uint64_t streams = world.random().chance(300'000) ? world.random().between(1, 4) : 100;
  const std::uint64_t window = world.random().chance(300'000) ? world.random().between(1024, 8192) : 65535;
  return R"({
  "workers": 2,
  "listeners": [ { "name": "web", "address": "127.0.0.1:8080", "protocol": "http",
    "timeouts": { "header_ms": 2000, "keepalive_ms": 1500, "write_ms": )" +
         std::to_string(write_ms) + R"( },
    "http2": { "max_concurrent_streams": )" +
         std::to_string(streams) + R"(, "initial_window_size": )" + std::to_string(window) + R"( },
    "routes": [
      { "method": "GET", "path": "/plaintext", "handler": "text", "with": { "body": "Hello, World!" } },
      { "method": "GET", "path": "/big", "handler": "text", "with": { "body": ")" +
         json_escaped(big) + R"(" } },
      { "method": "POST", "path": "/echo", "handler": "echo" } ] } ]
})";
}

struct Crowd {
  int clients = 0;  // http2_client: every stream answered or reset by the client itself
  int leaving = 0;
  int streams = 0;  // over every client
  int total() const noexcept { return clients + leaving; }
};

// Spawns the seed's clients on a host of their own: each with its own
// streams, window and manners; the seed's swarm decides whether any resets.
Crowd spawn_crowd(World& world, const Http2Plan& plan, Http2Tally& tally) {
  Crowd crowd;
  crowd.clients = static_cast<int>(world.random().between(1, 12));
  crowd.leaving = static_cast<int>(world.random().between(0, 4));
  const bool resets = world.random().chance(400'000);
  Host& clients = world.add_host("h2 clients");
  for (int i = 0; i < crowd.clients; ++i) {
    Http2ClientOptions options;
    options.streams = static_cast<int>(world.random().between(1, 24));
    if (world.random().chance(300'000)) options.window = static_cast<std::uint32_t>(world.random().between(256, 16384));
    options.slow_reader = world.random().chance(200'000);
    options.cancel_per_million = resets ? 150'000 : 0;
    crowd.streams += options.streams;
    world.spawn(clients, http2_client(world, "127.0.0.1", 8080, options, plan, tally));
  }
  for (int i = 0; i < crowd.leaving; ++i)
    world.spawn(clients, leaving_http2_client(world, "127.0.0.1", 8080, plan, tally));
  return crowd;
}

// Request `i` of every client: a greeting, the big body (flow control both
// ways), or an upload of the seed's size echoed back.
Http2Plan request_plan(World& world, const std::string& big) {
  const std::size_t upload_size = world.random().below(100'000);
  return [big, upload = big.substr(0, std::min(upload_size, big.size())) +
                        std::string(upload_size > big.size() ? upload_size - big.size() : 0, 'u')](int i) {
    switch (i % 3) {
      case 0: return Http2Request{"GET", "/plaintext", "", "Hello, World!"};
      case 1: return Http2Request{"GET", "/big", "", big};
      default: {
        std::string body = upload.substr(0, upload.size() / static_cast<std::size_t>(i + 1));
        return Http2Request{"POST", "/echo", body, body};
      }
    }
  };
}

std::string describe(const Crowd& crowd, const Http2Tally& tally) {
  return std::to_string(tally.answered) + " answers, " + std::to_string(tally.canceled) + " resets of " +
         std::to_string(crowd.streams) + " streams from " + std::to_string(crowd.clients) + " clients, " +
         std::to_string(crowd.leaving) + " leaving";
}

// Every stream is answered in full or reset by its client; no GOAWAY with an
// error; then a drain leaves no connection.
void http2(World& world, ScenarioOutcome& outcome) {
  const std::string big = big_body();
  SimServer server(world, parse_config(server_config(world, big), "sim-http2.json"));
  Http2Tally tally;
  const Http2Plan plan = request_plan(world, big);
  const Crowd crowd = spawn_crowd(world, plan, tally);
  const RunEnd served = world.run_until([&] { return tally.ended == crowd.total(); }, 1h);
  outcome.check(served == RunEnd::done, "the clients did not all end within an hour of virtual time");
  outcome.check(tally.answered + tally.canceled == crowd.streams,
                "answered " + std::to_string(tally.answered) + " and reset " + std::to_string(tally.canceled) + " of " +
                    std::to_string(crowd.streams) + " streams");
  outcome.check(tally.wrong == 0, std::to_string(tally.wrong) + " wrong answers");
  outcome.check(tally.cut == 0, std::to_string(tally.cut) + " streams cut with their connection");
  outcome.check(tally.refused == 0, std::to_string(tally.refused) + " streams refused");
  outcome.check(tally.goaway_errors == 0, std::to_string(tally.goaway_errors) + " GOAWAYs with an error");
  outcome.check(tally.finished == crowd.clients,
                std::to_string(tally.finished) + " of " + std::to_string(crowd.clients) + " clients finished");
  drain_and_check(world, server, 5s, outcome);
  outcome.summary = describe(crowd, tally);
}

}  // namespace

void add_http2_scenarios(std::vector<Scenario>& into) {
  into.push_back({"http2",
                  "HTTP/2 (prior knowledge) clients with many streams, resets, small windows and uploads against two "
                  "workers, then a drain",
                  http2, 800});
}

}  // namespace tiffany::sim
