// Test helper: a keep-alive HTTP/1.1 client as a task on a simulated host.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>

#include <charconv>
#include <chrono>
#include <functional>
#include <optional>
#include <string>

#include <tiffany/coro/sleep.hpp>
#include <tiffany/net/socket_stream.hpp>
#include <tiffany/reactor/connect.hpp>
#include <tiffany/reactor/socket_calls.hpp>
#include <tiffany/reactor/unique_fd.hpp>

#include "sim/world.hpp"

namespace tiffany::sim {

/// What a set of clients saw.
struct ClientTally {
  int answered = 0;  // a 200 with the body expected
  int wrong = 0;     // anything else: another status or body, a failed connect, write or read
  int finished = 0;  // clients that sent everything and read every answer
};

/// Reads one answer with a Content-Length body from `stream`, `pending`
/// holding what came beyond the last one; its body, or nullopt (not a 200, or the stream ended).
inline Task<std::optional<std::string>> read_http_answer(SocketStream& stream, std::string& pending) {
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

/// Request `i` of a client: its path and the body its answer must carry.
using RequestPlan = std::function<std::pair<std::string, std::string>(int i)>;

/// Connects to `ip`:`port`, sends `requests` GETs one at a time, each after
/// a seeded pause of up to `max_pause` (under KeepAliveHold's 20 ms window
/// the connection's task holds it, over it the connection parks), checks
/// each answer, then closes.
inline Task<void> keep_alive_client(World& world, const char* ip, std::uint16_t port, int requests,
                                    RequestPlan plan, ClientTally& tally,
                                    std::chrono::milliseconds max_pause = std::chrono::milliseconds(60)) {
  UniqueFd socket(SocketCalls::current().socket(AF_INET, SOCK_STREAM, 0));
  sockaddr_in server{};
  server.sin_family = AF_INET;
  server.sin_port = htons(port);
  inet_pton(AF_INET, ip, &server.sin_addr);
  const IoResult connected = co_await Connect{socket.get(), reinterpret_cast<const sockaddr*>(&server), sizeof server};
  if (!connected) {
    ++tally.wrong;
    co_return;
  }
  SocketStream stream(socket.get());
  std::string pending;
  for (int i = 0; i < requests; ++i) {
    co_await Sleep{std::chrono::milliseconds(world.random().below(static_cast<std::uint64_t>(max_pause.count())))};
    const auto [path, expected] = plan(i);
    const std::string request = "GET " + path + " HTTP/1.1\r\nHost: sim\r\n\r\n";
    const IoResult written = co_await stream.write(request.data(), request.size());
    if (!written) {
      ++tally.wrong;
      co_return;
    }
    const std::optional<std::string> body = co_await read_http_answer(stream, pending);
    if (body == expected) {
      ++tally.answered;
    } else {
      ++tally.wrong;
    }
  }
  ++tally.finished;
}

}  // namespace tiffany::sim
