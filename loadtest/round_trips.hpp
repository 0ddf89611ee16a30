// round_trips.hpp: what the round-trip clients (echo_load, ws_load) share — their message
// flags (--size, --verify), the count of round trips with their latencies, and the one-line
// report (`key=value` fields, as loadtest/lib/measure.sh's client_field reads them).
#pragma once

#include <netinet/in.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "loadtest/load_options.hpp"
#include "loadtest/load_run.hpp"

namespace tiffany::loadtest {

/// A round-trip client's options: the common ones, the message size and --verify.
struct RoundTripOptions {
  LoadOptions load;
  std::size_t message_size = 512;
  bool verify = false;  // compare every reply with the message sent, byte for byte

  /// Parses argv for `program`: the common flags, --size and --verify, and the client's own
  /// through `on_flag(flag, value)` (false for a flag it does not take), `own_usage` naming
  /// them. Exits with the usage on a problem; sets `server`. Returns the command line, for
  /// the client's own checks to fail with.
  template <typename OnFlag>
  CommandLine parse(const char* program, int argc, char** argv, sockaddr_in& server, const std::string& own_usage,
                    OnFlag&& on_flag) {
    CommandLine command_line(program, load, "[--size 512] [--verify]" + own_usage);
    command_line.parse(argc, argv, load, server, {"--verify"}, [&](std::string_view flag, const char* value) {
      if (flag == "--size") {
        message_size = static_cast<std::size_t>(std::atol(value));
      } else if (flag == "--verify") {
        verify = true;
      } else {
        return on_flag(flag, value);
      }
      return true;
    });
    if (message_size < 1) command_line.fail("size must be positive");
    return command_line;
  }
};

/// The round trips of a run, counted by its connections' tasks (one thread).
struct RoundTrips {
  std::uint64_t messages = 0;
  std::uint64_t errors = 0;
  std::vector<float> latencies_us;  // one per message

  RoundTrips() { latencies_us.reserve(1 << 20); }

  /// One round trip that began at `start` is over.
  void done(Clock::time_point start) {
    ++messages;
    latencies_us.push_back(std::chrono::duration<float, std::micro>(Clock::now() - start).count());
  }

  /// Prints the report line of a run of `elapsed` seconds; returns the exit status (0: no error).
  int report(const RoundTripOptions& options, double elapsed) {
    std::sort(latencies_us.begin(), latencies_us.end());
    std::printf(
        "connections=%d size=%zu duration=%.2fs messages=%llu msgs_per_sec=%.0f latency_us p50=%.1f p90=%.1f "
        "p99=%.1f max=%.1f errors=%llu\n",
        options.load.connections, options.message_size, elapsed, static_cast<unsigned long long>(messages),
        static_cast<double>(messages) / elapsed, percentile(0.50), percentile(0.90), percentile(0.99),
        latencies_us.empty() ? 0.0f : latencies_us.back(), static_cast<unsigned long long>(errors));
    return errors == 0 ? 0 : 1;
  }

 private:
  float percentile(double p) const {
    if (latencies_us.empty()) return 0;
    return latencies_us[static_cast<std::size_t>(p * static_cast<double>(latencies_us.size() - 1))];
  }
};

}  // namespace tiffany::loadtest
