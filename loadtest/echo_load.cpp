// echo_load: an echo load client on Tiffany's own reactor. N connections each
// send a message, wait for all of it to come back, and repeat until the
// duration is over; prints messages/s and round-trip latency percentiles.
#include <netinet/in.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include <tiffany/reactor/recv.hpp>
#include <tiffany/reactor/send.hpp>

#include "loadtest/load_options.hpp"
#include "loadtest/load_run.hpp"

namespace {

using namespace tiffany;
using loadtest::Clock;

struct Options {
  loadtest::LoadOptions load{.port = 7000, .connections = 50};
  std::size_t message_size = 512;
  bool verify = false;
};

struct Totals {
  std::uint64_t messages = 0;
  std::uint64_t errors = 0;
  std::vector<float> latencies_us;  // one per message
};

// Parses the command line into `options` and the server's address; exits with the usage on a problem.
void parse_options(int argc, char** argv, Options& options, sockaddr_in& server) {
  const loadtest::CommandLine command_line("echo_load", options.load, "[--size 512] [--verify]");
  command_line.parse(argc, argv, options.load, server, {"--verify"}, [&](std::string_view flag, const char* value) {
    if (flag == "--size") {
      options.message_size = static_cast<std::size_t>(std::atol(value));
    } else if (flag == "--verify") {
      options.verify = true;
    } else {
      return false;
    }
    return true;
  });
  if (options.message_size < 1) command_line.fail("size must be positive");
}

// One connection: send, read the echo back in full, repeat until `deadline`.
Task<void> drive_connection(const Options& options, const sockaddr_in& server, Clock::time_point deadline,
                            Totals& totals) {
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
    ++totals.messages;
    totals.latencies_us.push_back(std::chrono::duration<float, std::micro>(Clock::now() - start).count());
  }
}

float percentile(std::vector<float>& sorted, double p) {
  if (sorted.empty()) return 0;
  const auto index = static_cast<std::size_t>(p * static_cast<double>(sorted.size() - 1));
  return sorted[index];
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  sockaddr_in server{};
  parse_options(argc, argv, options, server);

  Totals totals;
  totals.latencies_us.reserve(1 << 20);
  const double elapsed = loadtest::run_until_deadline(
      options.load.connections, options.load.duration_seconds,
      [&](Clock::time_point deadline) { return drive_connection(options, server, deadline, totals); });

  std::sort(totals.latencies_us.begin(), totals.latencies_us.end());
  std::printf(
      "connections=%d size=%zu duration=%.2fs messages=%llu msgs_per_sec=%.0f latency_us p50=%.1f p90=%.1f "
      "p99=%.1f max=%.1f errors=%llu\n",
      options.load.connections, options.message_size, elapsed, static_cast<unsigned long long>(totals.messages),
      static_cast<double>(totals.messages) / elapsed, percentile(totals.latencies_us, 0.50),
      percentile(totals.latencies_us, 0.90), percentile(totals.latencies_us, 0.99),
      totals.latencies_us.empty() ? 0.0f : totals.latencies_us.back(), static_cast<unsigned long long>(totals.errors));
  return totals.errors == 0 ? 0 : 1;
}
