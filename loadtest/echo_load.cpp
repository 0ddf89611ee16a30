// echo_load: an echo load client on Tiffany's own reactor. N connections each
// send a message, wait for all of it to come back, and repeat until the
// duration is over; prints messages/s and round-trip latency percentiles.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "coro/syscalls.hpp"
#include "reactor/connect.hpp"
#include "reactor/recv.hpp"
#include "reactor/send.hpp"
#include "reactor/unique_fd.hpp"
#include "reactor/uring_reactor.hpp"

namespace {

using namespace tiffany;
using Clock = std::chrono::steady_clock;

struct Options {
  std::string host = "127.0.0.1";
  int port = 7000;
  int connections = 50;
  std::size_t message_size = 512;
  double duration_seconds = 5;
  bool verify = false;
};

struct Totals {
  std::uint64_t messages = 0;
  std::uint64_t errors = 0;
  std::vector<float> latencies_us;  // one per message
};

[[noreturn]] void usage(const char* problem) {
  std::fprintf(stderr,
               "echo_load: %s\n"
               "usage: echo_load [--host 127.0.0.1] [--port 7000] [--connections 50] [--size 512]\n"
               "                 [--duration 5] [--verify]\n",
               problem);
  std::exit(2);
}

Options parse_options(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--verify") {
      options.verify = true;
    } else if (arg == "--host" && has_value) {
      options.host = argv[++i];
    } else if (arg == "--port" && has_value) {
      options.port = std::atoi(argv[++i]);
    } else if (arg == "--connections" && has_value) {
      options.connections = std::atoi(argv[++i]);
    } else if (arg == "--size" && has_value) {
      options.message_size = static_cast<std::size_t>(std::atol(argv[++i]));
    } else if (arg == "--duration" && has_value) {
      options.duration_seconds = std::atof(argv[++i]);
    } else {
      usage(("unknown or incomplete argument " + std::string(arg)).c_str());
    }
  }
  if (options.connections < 1 || options.message_size < 1 || options.duration_seconds <= 0 || options.port < 1 ||
      options.port > 65535) {
    usage("connections, size, duration and port must be positive");
  }
  return options;
}

// One connection: send, read the echo back in full, repeat until `deadline`.
Task<void> drive_connection(const Options& options, const sockaddr_in& server, Clock::time_point deadline,
                            Totals& totals) {
  UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  const IoResult connected = co_await Connect{fd.get(), reinterpret_cast<const sockaddr*>(&server), sizeof server};
  if (!connected) {
    std::fprintf(stderr, "echo_load: connect: %s\n", connected.message().c_str());
    ++totals.errors;
    co_return;
  }
  const int one = 1;
  ::setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);

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
  const Options options = parse_options(argc, argv);
  sockaddr_in server{};
  server.sin_family = AF_INET;
  server.sin_port = htons(static_cast<std::uint16_t>(options.port));
  if (inet_pton(AF_INET, options.host.c_str(), &server.sin_addr) != 1) usage("--host must be an IPv4 address");

  UringReactor reactor;
  Scheduler scheduler(&reactor);
  Totals totals;
  totals.latencies_us.reserve(1 << 20);
  const auto start = Clock::now();
  const auto deadline =
      start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(options.duration_seconds));
  for (int i = 0; i < options.connections; ++i) {
    (void)scheduler.spawn(drive_connection(options, server, deadline, totals));
  }
  scheduler.run();
  const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();

  std::sort(totals.latencies_us.begin(), totals.latencies_us.end());
  std::printf(
      "connections=%d size=%zu duration=%.2fs messages=%llu msgs_per_sec=%.0f latency_us p50=%.1f p90=%.1f "
      "p99=%.1f max=%.1f errors=%llu\n",
      options.connections, options.message_size, elapsed, static_cast<unsigned long long>(totals.messages),
      static_cast<double>(totals.messages) / elapsed, percentile(totals.latencies_us, 0.50),
      percentile(totals.latencies_us, 0.90), percentile(totals.latencies_us, 0.99),
      totals.latencies_us.empty() ? 0.0f : totals.latencies_us.back(), static_cast<unsigned long long>(totals.errors));
  return totals.errors == 0 ? 0 : 1;
}
