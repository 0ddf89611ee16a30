// Simulated HTTP/1.1 clients: tasks on a peer host that check what they are answered.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>

#include <tiffany/coro/task.hpp>
#include <tiffany/net/socket_stream.hpp>

#include "sim/world.hpp"

namespace tiffany::sim {

/// What a set of clients saw.
struct ClientTally {
  int answered = 0;  // a 200 with the body expected
  int wrong = 0;     // an answer that is not: another status, another body
  int cut = 0;       // a connection refused or ended before an answer (a drain may do that)
  int finished = 0;  // clients that sent everything and read every answer
  int left = 0;      // clients that left on purpose before their answer (see leaving_client)
  int ended = 0;     // clients whose task has ended, however
};

/// One answer read: a 200's body, another status, or the end of the stream.
struct HttpAnswer {
  enum class Kind { ok, not_ok, ended } kind;
  std::string body;
};

/// Reads one answer with a Content-Length body from `stream`, `pending`
/// holding what came beyond the last one.
Task<HttpAnswer> read_http_answer(SocketStream& stream, std::string& pending);

/// Request `i` of a client: its path and the body its answer must carry.
using RequestPlan = std::function<std::pair<std::string, std::string>(int i)>;

/// Connects to `ip`:`port`, sends `requests` GETs one at a time, each after
/// a seeded pause of up to `max_pause` (under KeepAliveHold's 20 ms window
/// the connection's task holds it, over it the connection parks), checks
/// each answer, then closes.
Task<void> keep_alive_client(World& world, const char* ip, std::uint16_t port, int requests, RequestPlan plan,
                             ClientTally& tally, std::chrono::milliseconds max_pause = std::chrono::milliseconds(60));

/// As keep_alive_client, then stays connected without a word, as a browser
/// keeps an idle connection, until the server closes it (its keep-alive
/// timeout, or a drain's grace); counted finished once it has.
Task<void> idle_client(World& world, const char* ip, std::uint16_t port, int requests, RequestPlan plan,
                       ClientTally& tally);

/// Connects and sends `requests` GETs at once (pipelined, in seeded
/// pieces), then reads every answer in order and closes.
Task<void> pipelining_client(World& world, const char* ip, std::uint16_t port, int requests, RequestPlan plan,
                             ClientTally& tally);

/// (Every parameter a coroutine keeps is taken by value or outlives the
/// task: `ip` a literal, `world` and `tally` the scenario's.)
///
/// Connects, sends a seeded prefix of a request (maybe all of it), and
/// leaves: closes at once, or after a seeded pause, without reading. The
/// server must let go of the connection either way.
Task<void> leaving_client(World& world, const char* ip, std::uint16_t port, std::string request, ClientTally& tally);

}  // namespace tiffany::sim
