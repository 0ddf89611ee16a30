// echo_load: an echo load client on Tiffany's own reactor. N connections each
// send a message, wait for all of it to come back, and repeat until the
// duration is over; prints messages/s and round-trip latency percentiles.
#include <netinet/in.h>

#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include <tiffany/reactor/recv.hpp>
#include <tiffany/reactor/send.hpp>

#include "loadtest/load_run.hpp"
#include "loadtest/round_trips.hpp"

namespace {

using namespace tiffany;
using loadtest::Clock;

// One connection: send, read the echo back in full, repeat until `deadline`.
Task<void> drive_connection(const loadtest::RoundTripOptions& options, const sockaddr_in& server,
                            Clock::time_point deadline, loadtest::RoundTrips& totals) {
  const UniqueFd fd = co_await loadtest::connect_tcp(server, "echo_load");
  if (!fd) {
    ++totals.errors;
    co_return;
  }
  std::vector<char> message(options.message_size);
  for (std::size_t i = 0; i < message.size(); ++i) message[i] = static_cast<char>('a' + i % 26);
  std::vector<char> reply(options.message_size);

  while (Clock::now() < deadline) {
    const auto start = Clock::now();
    for (std::size_t sent = 0; sent < message.size();) {
      const IoResult put = co_await Send{fd.get(), message.data() + sent, message.size() - sent};
      if (!put) {
        ++totals.errors;
        co_return;
      }
      sent += put.bytes();
    }
    for (std::size_t got = 0; got < reply.size();) {
      const IoResult r = co_await Recv{fd.get(), reply.data() + got, reply.size() - got};
      if (!r || r.bytes() == 0) {
        ++totals.errors;
        co_return;
      }
      got += r.bytes();
    }
    if (options.verify && reply != message) ++totals.errors;
    totals.done(start);
  }
}

}  // namespace

int main(int argc, char** argv) {
  loadtest::RoundTripOptions options{.load = {.port = 7000, .connections = 50}};
  sockaddr_in server{};
  (void)options.parse("echo_load", argc, argv, server, "", [](std::string_view, const char*) { return false; });

  loadtest::RoundTrips totals;
  const double elapsed = loadtest::run_until_deadline(
      options.load.connections, options.load.duration_seconds,
      [&](Clock::time_point deadline) { return drive_connection(options, server, deadline, totals); });
  return totals.report(options, elapsed);
}
