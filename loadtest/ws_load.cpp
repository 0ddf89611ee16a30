// ws_load: a WebSocket load client on Tiffany's own reactor. N connections each upgrade
// (HTTP/1.1, checking the 101 and its Sec-WebSocket-Accept, offering no extension), then
// send one masked binary message, wait for the whole echoed message back, and repeat until
// the duration is over; prints messages/s and round-trip latency percentiles, in the
// fields echo_load prints.
#include <netinet/in.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "loadtest/load_run.hpp"
#include "loadtest/round_trips.hpp"
#include "loadtest/ws_connection.hpp"

namespace {

using namespace tiffany;
using loadtest::Clock;
namespace ws = http::websocket;

struct Options {
  loadtest::RoundTripOptions round_trip{.load = {.port = 7000, .connections = 64}};
  std::string path = "/ws";
};

// Counts an error; the first few are printed, so a run that fails says why.
void count_error(loadtest::RoundTrips& totals, const std::string& why) {
  if (++totals.errors <= 3) std::fprintf(stderr, "ws_load: %s\n", why.c_str());
}

// One connection: upgrade, then send a message, read its echo in full, repeat until `deadline`.
Task<void> drive_connection(const Options& options, const sockaddr_in& server, Clock::time_point deadline,
                            std::uint32_t seed, loadtest::RoundTrips& totals) {
  const std::size_t size = options.round_trip.message_size;
  loadtest::WsConnection connection(seed, std::max<std::size_t>(size, 1 << 20));
  const std::string problem = co_await connection.open(server, options.path, "ws_load");
  if (!problem.empty()) {
    count_error(totals, "upgrade: " + problem);
    co_return;
  }
  std::string message(size, '\0');
  for (std::size_t i = 0; i < message.size(); ++i) message[i] = static_cast<char>('a' + i % 26);

  while (Clock::now() < deadline) {
    const auto start = Clock::now();
    const bool sent = co_await connection.send(ws::Opcode::binary, message);
    if (!sent) {
      count_error(totals, "send failed");
      co_return;
    }
    const ws::Event event = co_await connection.next();
    if (event.kind == ws::Event::Kind::close) {
      count_error(totals, "the server closed with " + std::to_string(event.code));
      co_return;
    }
    if (event.kind != ws::Event::Kind::message) {
      count_error(totals, event.why);
      co_return;
    }
    if (event.text || event.payload.size() != size || (options.round_trip.verify && event.payload != message)) {
      count_error(totals, "an echo that differs from the message sent");
    }
    totals.done(start);
  }
  // Why a close frame: the server then ends the connection as a client's close asks, not as a lost one.
  (void)co_await connection.send_close(ws::close_code::normal);
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  sockaddr_in server{};
  const loadtest::CommandLine command_line =
      options.round_trip.parse("ws_load", argc, argv, server, " [--path /ws]", [&](std::string_view flag, const char* value) {
        if (flag != "--path") return false;
        options.path = value;
        return true;
      });
  if (options.path.empty() || options.path.front() != '/') command_line.fail("path must start with /");

  loadtest::RoundTrips totals;
  std::uint32_t connection = 0;
  const double elapsed = loadtest::run_until_deadline(
      options.round_trip.load.connections, options.round_trip.load.duration_seconds, [&](Clock::time_point deadline) {
        return drive_connection(options, server, deadline, 0x9e3779b9u * ++connection, totals);
      });
  return totals.report(options.round_trip, elapsed);
}
