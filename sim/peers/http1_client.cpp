// Simulated HTTP/1.1 clients: connect, write, read and check, through the same awaitables as the server.
#include "sim/peers/http1_client.hpp"

#include <charconv>
#include <vector>

#include <tiffany/coro/join.hpp>
#include <tiffany/coro/sleep.hpp>
#include <tiffany/coro/spawn.hpp>
#include <tiffany/coro/task_canceled.hpp>
#include <tiffany/reactor/socket_calls.hpp>
#include <tiffany/reactor/unique_fd.hpp>

#include "sim/peers/peer_connect.hpp"

namespace tiffany::sim {
namespace {

std::string get_request(const std::string& path) { return "GET " + path + " HTTP/1.1\r\nHost: sim\r\n\r\n"; }

// Counts `answer` against the body it should carry; false when the connection ended.
bool tally_answer(const HttpAnswer& answer, const std::string& expected, ClientTally& tally) {
  if (answer.kind == HttpAnswer::Kind::ended) {
    ++tally.cut;
    return false;
  }
  if (answer.kind == HttpAnswer::Kind::ok && answer.body == expected) {
    ++tally.answered;
  } else {
    ++tally.wrong;
  }
  return true;
}

}  // namespace

Task<HttpAnswer> read_http_answer(SocketStream& stream, std::string& pending) {
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
        co_return HttpAnswer{ok ? HttpAnswer::Kind::ok : HttpAnswer::Kind::not_ok, std::move(body)};
      }
    }
    const IoResult read = co_await stream.read(buffer, sizeof buffer);
    if (!read || read.bytes() == 0) co_return HttpAnswer{HttpAnswer::Kind::ended, {}};
    pending.append(buffer, read.bytes());
  }
}

// Asks `requests` GETs one at a time on `stream`, each after a seeded pause
// of up to `max_pause`, and counts the answers; true when every one came.
Task<bool> ask_one_by_one(World& world, SocketStream& stream, int requests, const RequestPlan& plan, ClientTally& tally,
                          std::chrono::milliseconds max_pause) {
  std::string pending;
  for (int i = 0; i < requests; ++i) {
    co_await Sleep{std::chrono::milliseconds(world.random().below(static_cast<std::uint64_t>(max_pause.count())))};
    const auto [path, expected] = plan(i);
    const std::string request = get_request(path);
    const IoResult written = co_await stream.write(request.data(), request.size());
    if (!written) {
      ++tally.cut;
      co_return false;
    }
    const HttpAnswer answer = co_await read_http_answer(stream, pending);
    if (!tally_answer(answer, expected, tally)) co_return false;
  }
  co_return true;
}

Task<void> keep_alive_client(World& world, const char* ip, std::uint16_t port, int requests, RequestPlan plan,
                             ClientTally& tally, std::chrono::milliseconds max_pause) {
  const CountsTheEnd<ClientTally> counts{tally};
  const UniqueFd socket = co_await connect_to(ip, port);
  if (!socket) {
    ++tally.cut;
    co_return;
  }
  SocketStream stream(socket.get());
  const bool answered = co_await ask_one_by_one(world, stream, requests, plan, tally, max_pause);
  if (answered) ++tally.finished;
}

Task<void> idle_client(World& world, const char* ip, std::uint16_t port, int requests, RequestPlan plan,
                       ClientTally& tally) {
  const CountsTheEnd<ClientTally> counts{tally};
  const UniqueFd socket = co_await connect_to(ip, port);
  if (!socket) {
    ++tally.cut;
    co_return;
  }
  SocketStream stream(socket.get());
  const bool answered = co_await ask_one_by_one(world, stream, requests, plan, tally, std::chrono::milliseconds(60));
  if (!answered) co_return;
  char byte;
  const IoResult end = co_await stream.read(&byte, 1);  // the server's close: 0, or a reset
  if (!end || end.bytes() == 0) {
    ++tally.finished;
  } else {
    ++tally.wrong;  // bytes nobody asked for
  }
}

// Writes `wire` in seeded pieces; `failed` says whether a write failed.
Task<void> write_in_pieces(World& world, SocketStream& stream, const std::string& wire, bool& failed) {
  for (std::size_t sent = 0; sent < wire.size();) {
    const std::size_t piece = std::min<std::size_t>(wire.size() - sent, world.random().between(1, 512));
    const IoResult written = co_await stream.write(wire.data() + sent, piece);
    if (!written) {
      failed = true;
      co_return;
    }
    sent += piece;
  }
}

Task<void> pipelining_client(World& world, const char* ip, std::uint16_t port, int requests, RequestPlan plan,
                             ClientTally& tally) {
  const CountsTheEnd<ClientTally> counts{tally};
  const UniqueFd socket = co_await connect_to(ip, port);
  if (!socket) {
    ++tally.cut;
    co_return;
  }
  SocketStream stream(socket.get());
  std::string wire;
  std::vector<std::string> expected;
  for (int i = 0; i < requests; ++i) {
    auto [path, body] = plan(i);
    wire += get_request(path);
    expected.push_back(std::move(body));
  }
  // Why a writer task beside the reads: a client that wrote everything
  // before reading could fill both directions' windows and wait forever,
  // as over real TCP; pipelining clients (wrk, h2load) read as they write.
  bool write_failed = false;
  JoinHandle<void> writer = co_await Spawn{write_in_pieces(world, stream, wire, write_failed)};
  std::string pending;
  bool complete = true;
  for (const std::string& body : expected) {
    const HttpAnswer answer = co_await read_http_answer(stream, pending);
    if (!tally_answer(answer, body, tally)) {
      complete = false;
      break;
    }
  }
  if (!complete) writer.cancel();
  try {
    co_await Join{std::move(writer)};  // it uses this frame's stream and wire: never left behind
  } catch (const TaskCanceled&) {
  }
  if (complete && !write_failed) ++tally.finished;
}

Task<void> leaving_client(World& world, const char* ip, std::uint16_t port, std::string request, ClientTally& tally) {
  const CountsTheEnd<ClientTally> counts{tally};
  UniqueFd socket = co_await connect_to(ip, port);
  if (!socket) {
    ++tally.cut;
    co_return;
  }
  SocketStream stream(socket.get());
  const std::size_t prefix = world.random().below(request.size() + 1);
  if (prefix > 0) {
    const IoResult written = co_await stream.write(request.data(), prefix);
    (void)written;  // the server may already have given up on us: either way we leave
  }
  if (world.random().chance(500'000)) co_await Sleep{std::chrono::milliseconds(world.random().below(3'000))};
  if (world.random().chance(200'000)) {
    SocketCalls::current().shutdown(socket.get(), SHUT_WR);  // a half-close first, then gone
  }
  socket.reset();
  ++tally.left;
}

}  // namespace tiffany::sim
