// The real HTTP/1.1 connection (HttpProtocol over serve_stream) on the simulated network: a
// pipelining client on another host, segmenting and short writes by seed, one trace hash per seed.
#include <gtest/gtest.h>

#include <charconv>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <tiffany/coro/scheduler.hpp>
#include <tiffany/handlers/handler.hpp>
#include <tiffany/net/socket_stream.hpp>

#include "server/http/http_protocol.hpp"
#include "server/transport/serve_stream.hpp"
#include "sim/world.hpp"

namespace tiffany::sim {
namespace {

class GreetsByName final : public Handler {
 public:
  Task<void> handle(http::Request& request, http::Response& response) override {
    response.headers.add("Content-Type", "text/plain");
    response.body = "hello " + std::string(request.param("name").value_or(""));
    co_return;
  }
};

class EchoesTheBody final : public Handler {
 public:
  Task<void> handle(http::Request& request, http::Response& response) override {
    response.body = request.body;
    co_return;
  }
};

http::HttpSite simulated_site() {
  http::HttpSite site;
  site.router.add({"GET"}, "/hello/:name", std::make_shared<GreetsByName>());
  site.router.add({"POST"}, "/echo", std::make_shared<EchoesTheBody>());
  return site;
}

// The server's side: one connection served to its end, then closed as the transports close it.
Task<void> serve_connection(const http::HttpSite& site, SimNetwork& network, int fd) {
  {
    SocketStream stream(fd);
    HttpProtocol protocol(site);
    co_await serve_stream(protocol, stream, "10.0.0.2:40000", nullptr);
  }
  network.close(fd);
}

struct Requests {
  std::string wire;                   // every request, back to back
  std::vector<std::string> expected;  // the body each answer must carry, in order
};

// `count` requests, alternately a greeting and an echo of a seeded body; the last asks to close.
Requests make_requests(SeededRandom& random, int count) {
  Requests requests;
  for (int i = 0; i < count; ++i) {
    const bool last = i + 1 == count;
    const std::string connection = last ? "Connection: close\r\n" : "";
    if (i % 2 == 0) {
      const std::string name = "n" + std::to_string(random.below(1000));
      requests.wire += "GET /hello/" + name + " HTTP/1.1\r\nHost: sim\r\n" + connection + "\r\n";
      requests.expected.push_back("hello " + name);
    } else {
      std::string body(random.between(1, 40'000), '\0');
      for (char& c : body) c = static_cast<char>('a' + random.below(26));
      requests.wire += "POST /echo HTTP/1.1\r\nHost: sim\r\nContent-Length: " + std::to_string(body.size()) + "\r\n" +
                       connection + "\r\n" + body;
      requests.expected.push_back(std::move(body));
    }
  }
  return requests;
}

// The client's side: writes the requests in seeded pieces, reads until the server closes.
Task<void> pipelining_client(SimNetwork& network, SeededRandom& random, int fd, const std::string& wire,
                             std::string& received) {
  {
    SocketStream stream(fd);
    for (std::size_t sent = 0; sent < wire.size();) {
      const std::size_t piece = std::min<std::size_t>(wire.size() - sent, random.between(1, 20'000));
      const IoResult written = co_await stream.write(wire.data() + sent, piece);
      if (!written) break;
      sent += piece;
    }
    char buffer[8192];
    for (;;) {
      const IoResult read = co_await stream.read(buffer, sizeof buffer);
      if (!read || read.bytes() == 0) break;
      received.append(buffer, read.bytes());
    }
  }
  network.close(fd);
}

struct Answer {
  int status = 0;
  std::string body;
};

// Splits what the client received into answers (each has a Content-Length: the handlers set whole bodies).
std::vector<Answer> parse_answers(std::string_view received) {
  std::vector<Answer> answers;
  while (!received.empty()) {
    const std::size_t head_end = received.find("\r\n\r\n");
    if (head_end == std::string_view::npos || !received.starts_with("HTTP/1.1 ")) break;
    const std::string_view head = received.substr(0, head_end);
    Answer answer;
    std::from_chars(head.data() + 9, head.data() + 12, answer.status);
    std::size_t length = 0;
    const std::size_t field = head.find("\r\nContent-Length: ");
    if (field != std::string_view::npos) {
      const char* value = head.data() + field + 18;
      std::from_chars(value, head.data() + head.size(), length);
    }
    answer.body = std::string(received.substr(head_end + 4, length));
    answers.push_back(std::move(answer));
    received.remove_prefix(std::min(received.size(), head_end + 4 + length));
  }
  return answers;
}

struct Http1Run {
  RunEnd end;
  std::uint64_t hash;
  std::vector<std::string> expected;
  std::vector<Answer> answers;
  std::size_t open_sockets;
  std::size_t foreign_operations;
};

Http1Run run_http1(std::uint64_t seed, int requests) {
  const http::HttpSite site = simulated_site();
  World world(seed);
  Host& server = world.add_host("server");
  Host& client = world.add_host("client");
  const auto [server_fd, client_fd] = world.network().socket_pair();
  const Requests wire = make_requests(world.random(), requests);
  std::string received;
  world.spawn(server, serve_connection(site, world.network(), server_fd));
  world.spawn(client, pipelining_client(world.network(), world.random(), client_fd, wire.wire, received));
  const RunEnd end = world.run();
  return Http1Run{end,
                  world.trace().value(),
                  wire.expected,
                  parse_answers(received),
                  world.network().open_sockets(),
                  server.reactor->foreign_operations() + client.reactor->foreign_operations()};
}

TEST(SimHttp1Test, EveryPipelinedRequestIsAnsweredInOrderWhateverTheSegmenting) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const Http1Run run = run_http1(seed, 9);
    ASSERT_EQ(run.end, RunEnd::quiet) << "seed " << seed;
    ASSERT_EQ(run.answers.size(), run.expected.size()) << "seed " << seed;
    for (std::size_t i = 0; i < run.answers.size(); ++i) {
      EXPECT_EQ(run.answers[i].status, 200) << "seed " << seed << " answer " << i;
      EXPECT_EQ(run.answers[i].body, run.expected[i]) << "seed " << seed << " answer " << i;
    }
    EXPECT_EQ(run.open_sockets, 0u) << "seed " << seed;
    EXPECT_EQ(run.foreign_operations, 0u) << "seed " << seed;
  }
}

TEST(SimHttp1Test, OneSeedGivesOneTraceHash) {
  for (std::uint64_t seed : {3u, 77u, 1234u}) {
    EXPECT_EQ(run_http1(seed, 7).hash, run_http1(seed, 7).hash) << "seed " << seed;
  }
}

TEST(SimHttp1Test, DifferentSeedsTakeDifferentPaths) {
  const std::uint64_t first = run_http1(1, 7).hash;
  int differing = 0;
  for (std::uint64_t seed = 2; seed <= 6; ++seed) differing += run_http1(seed, 7).hash != first ? 1 : 0;
  EXPECT_EQ(differing, 5);
}

}  // namespace
}  // namespace tiffany::sim
