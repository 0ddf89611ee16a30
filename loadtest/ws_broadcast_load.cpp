// ws_broadcast_load: the broadcast load of issue 19 on Tiffany's own reactor — S subscriber
// WebSockets subscribe to one channel of a pub/sub server (Tiffany's `pubsub` protocol:
// {"subscribe": C} -> {"subscribed": C}; {"publish": C, "data": D} -> {"channel": C, "data": D}
// to every subscriber), then one publisher connection publishes messages whose data is a
// SIZE-byte JSON string, keeping at most WINDOW of them in flight (published, not yet
// received by every subscriber: the slowest subscriber bounds the window), until the
// duration is over. Every delivery is checked: the text published, in order per subscriber.
// Prints deliveries (summed over the subscribers), deliveries_per_sec, published and errors
// as `key=value` fields; with --server-pid, also the server's CPU time over the publishing alone
// (server_cpu_us), which leaves out the upgrades and closes of the subscribers.
#include <netinet/in.h>
#include <sys/socket.h>

#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <tiffany/coro/sleep.hpp>
#include <tiffany/coro/wake_signal.hpp>

#include "loadtest/load_options.hpp"
#include "loadtest/load_run.hpp"
#include "loadtest/ws_connection.hpp"

namespace {

using namespace tiffany;
using loadtest::Clock;
namespace ws = http::websocket;

constexpr std::string_view kChannel = "bench";
constexpr std::size_t kSequenceDigits = 10;  // the data starts with its sequence number, zero-padded
constexpr auto kStallLimit = std::chrono::seconds(10);

struct Options {
  loadtest::LoadOptions load{.port = 7000, .connections = 1000};  // connections: the subscribers
  std::size_t message_size = 512;
  std::size_t window = 16;
  std::string path = "/pubsub";
  long server_pid = 0;  // 0: none
};

// The CPU time (utime+stime, all threads) process `pid` has used, in microseconds; -1 when unreadable.
long long cpu_us_of(long pid) {
  std::ifstream file("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  const std::size_t name_end = stat.rfind(')');  // Why from the last ')': the command name may hold spaces
  if (name_end == std::string::npos) return -1;
  std::istringstream fields(stat.substr(name_end + 2));
  std::string field;
  long long utime = 0;
  long long stime = 0;
  for (int number = 3; number <= 15 && fields >> field; ++number) {
    if (number == 14) utime = std::atoll(field.c_str());
    if (number == 15) stime = std::atoll(field.c_str());
  }
  if (!fields) return -1;
  return (utime + stime) * 1'000'000 / ::sysconf(_SC_CLK_TCK);
}

// What the subscribers, the publisher and the watchdog share (one thread).
struct Run {
  explicit Run(const Options& given)
      : options(given), received_by(given.window, 0), expected(given.window), fds(given.load.connections + 1, -1) {}

  const Options& options;
  std::size_t ready = 0;         // subscribers whose subscription is confirmed
  std::uint64_t published = 0;   // data messages published
  std::uint64_t completed = 0;   // of them, those every subscriber has received
  std::vector<std::size_t> received_by;  // per window slot (sequence % window): subscribers that have it
  std::vector<std::string> expected;     // per window slot: the text every subscriber must get
  std::string end_text;                  // the last message, published after the run: subscribers close on it
  std::uint64_t deliveries = 0;
  std::uint64_t errors = 0;
  bool failed = false;  // a connection failed: every socket is shut down and the run ends
  bool over = false;    // the publisher is done
  WakeSignal progress;  // set when a subscriber is ready or a message completes, for the publisher
  std::vector<int> fds; // each connection's socket while it is open (-1: none), the publisher's last
  Clock::time_point started{};
  Clock::time_point finished{};
  long long server_cpu_us = -1;  // with --server-pid: the server's CPU from started to finished

  std::size_t subscribers() const { return static_cast<std::size_t>(options.load.connections); }

  // Counts an error (the first few printed); the first one also ends the run: every socket is
  // shut down, so each task's read ends, and the publisher is woken.
  void fail(const std::string& why) {
    if (++errors <= 3) std::fprintf(stderr, "ws_broadcast_load: %s\n", why.c_str());
    if (failed) return;
    failed = true;
    for (const int fd : fds) {
      if (fd >= 0) ::shutdown(fd, SHUT_RDWR);
    }
    progress.set();
  }
};

// `{"KEY":"bench","data":"DATA"}`, as the server serializes it (no spaces).
std::string json_with_data(std::string_view key, std::string_view data) {
  std::string text = "{\"";
  text.append(key).append("\":\"").append(kChannel).append("\",\"data\":\"").append(data).append("\"}");
  return text;
}

// The data of message `sequence`: its number zero-padded, then letters, `size` bytes in all.
std::string data_of(std::uint64_t sequence, std::size_t size) {
  std::string data(size, '\0');
  std::snprintf(data.data(), kSequenceDigits + 1, "%0*llu", static_cast<int>(kSequenceDigits),
                static_cast<unsigned long long>(sequence));
  for (std::size_t i = kSequenceDigits; i < size; ++i) data[i] = static_cast<char>('a' + i % 26);
  return data;
}

// One subscriber: upgrade, subscribe, then check and count every message until the end one.
Task<void> subscribe(Run& run, const sockaddr_in& server, std::size_t index) {
  loadtest::WsConnection connection(0x9e3779b9u * static_cast<std::uint32_t>(index + 1), run.options.message_size + 256);
  const std::string problem = co_await connection.open(server, run.options.path, "ws_broadcast_load");
  if (!problem.empty()) {
    run.fail("subscriber upgrade: " + problem);
    co_return;
  }
  run.fds[index] = connection.fd();
  const std::string subscription = "{\"subscribe\":\"" + std::string(kChannel) + "\"}";
  const std::string confirmation = "{\"subscribed\":\"" + std::string(kChannel) + "\"}";
  const bool sent = co_await connection.send(ws::Opcode::text, subscription);
  ws::Event event;
  if (sent) event = co_await connection.next();
  if (!sent || event.kind != ws::Event::Kind::message || event.payload != confirmation) {
    if (!run.failed) run.fail("subscribing: expected " + confirmation + ", got " + event.payload + event.why);
    run.fds[index] = -1;
    co_return;
  }
  if (++run.ready == run.subscribers()) run.progress.set();
  for (std::uint64_t next = 0;; ++next) {
    event = co_await connection.next();
    if (run.failed) break;
    if (event.kind != ws::Event::Kind::message) {
      run.fail("subscriber " + std::to_string(index) + ": " +
               (event.kind == ws::Event::Kind::close ? "the server closed with " + std::to_string(event.code) : event.why));
      break;
    }
    if (!run.end_text.empty() && event.payload == run.end_text) {
      if (next != run.published) run.fail("subscriber " + std::to_string(index) + " missed messages before the end");
      break;
    }
    const std::size_t slot = next % run.options.window;
    if (next >= run.published || !event.text || event.payload != run.expected[slot]) {
      run.fail("subscriber " + std::to_string(index) + ": message " + std::to_string(next) +
               " is not the one published, in order: " + event.payload.substr(0, 60));
      break;
    }
    ++run.deliveries;
    // Why this completes `next`: each subscriber receives in order, so the last to get a message
    // has every earlier one too.
    if (++run.received_by[slot] == run.subscribers()) {
      run.completed = next + 1;
      run.progress.set();
    }
  }
  run.fds[index] = -1;
  (void)co_await connection.send_close(ws::close_code::normal);
}

// The publisher: once every subscriber is ready, publishes within the window until the duration
// is over, waits for the last messages to arrive, then publishes the end message and closes.
Task<void> publish(Run& run, const sockaddr_in& server) {
  const std::size_t me = run.subscribers();
  loadtest::WsConnection connection(0x2545f491u, 1 << 16);
  const std::string problem = co_await connection.open(server, run.options.path, "ws_broadcast_load");
  if (!problem.empty()) {
    run.fail("publisher upgrade: " + problem);
    run.over = true;
    co_return;
  }
  run.fds[me] = connection.fd();
  while (run.ready < run.subscribers() && !run.failed) co_await run.progress.wait();
  run.started = Clock::now();
  if (run.options.server_pid > 0) run.server_cpu_us = -cpu_us_of(run.options.server_pid);
  const auto deadline =
      run.started + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(run.options.load.duration_seconds));
  while (!run.failed && Clock::now() < deadline) {
    if (run.published - run.completed >= run.options.window) {
      co_await run.progress.wait();
      continue;
    }
    const std::string data = data_of(run.published, run.options.message_size);
    const std::size_t slot = run.published % run.options.window;
    run.expected[slot] = json_with_data("channel", data);
    run.received_by[slot] = 0;
    ++run.published;
    const bool sent = co_await connection.send(ws::Opcode::text, json_with_data("publish", data));
    if (!sent) run.fail("publishing failed");
  }
  while (!run.failed && run.completed < run.published) co_await run.progress.wait();
  run.finished = Clock::now();
  if (run.options.server_pid > 0) run.server_cpu_us += cpu_us_of(run.options.server_pid);
  if (!run.failed) {
    run.end_text = json_with_data("channel", "end");
    const bool sent = co_await connection.send(ws::Opcode::text, json_with_data("publish", "end"));
    if (!sent) run.fail("publishing the end failed");
  }
  // Why read to the server's close: an answer to the publisher ({"error": ...}) is a failure.
  const bool closing = co_await connection.send_close(ws::close_code::normal);
  const ws::Event answer = co_await connection.next();
  if (closing && !run.failed && answer.kind != ws::Event::Kind::close) {
    run.fail("the server answered the publisher: " + answer.payload + answer.why);
  }
  run.fds[me] = -1;
  run.over = true;
}

// Fails the run when nothing moves (no subscriber ready, no message completed) for kStallLimit.
Task<void> watch(Run& run) {
  auto last = Clock::now();
  std::uint64_t seen = 0;
  while (!run.over) {
    co_await Sleep{std::chrono::milliseconds(100)};
    const std::uint64_t now_seen = run.ready + run.completed + (run.end_text.empty() ? 0 : 1);
    if (now_seen != seen || run.failed) {
      seen = now_seen;
      last = Clock::now();
    } else if (Clock::now() - last > kStallLimit) {
      run.fail("no progress for 10 s: " + std::to_string(run.ready) + " subscribers ready, " +
               std::to_string(run.completed) + " of " + std::to_string(run.published) + " published messages received by all");
      last = Clock::now();
    }
  }
}

void parse_options(int argc, char** argv, Options& options, sockaddr_in& server) {
  const loadtest::CommandLine command_line("ws_broadcast_load", options.load,
                                           "[--size 512] [--window 16] [--path /pubsub] [--server-pid PID]\n"
                                           "                         (--connections: subscribers)");
  command_line.parse(argc, argv, options.load, server, {}, [&](std::string_view flag, const char* value) {
    if (flag == "--size") {
      options.message_size = static_cast<std::size_t>(std::atol(value));
    } else if (flag == "--window") {
      options.window = static_cast<std::size_t>(std::atol(value));
    } else if (flag == "--path") {
      options.path = value;
    } else if (flag == "--server-pid") {
      options.server_pid = std::atol(value);
    } else {
      return false;
    }
    return true;
  });
  if (options.message_size < kSequenceDigits || options.message_size > (1 << 20)) {
    command_line.fail("size must be from 10 to 1048576");
  }
  if (options.window < 1 || options.window > 100'000) command_line.fail("window must be from 1 to 100000");
  if (options.path.empty() || options.path.front() != '/') command_line.fail("path must start with /");
  if (options.server_pid != 0 && cpu_us_of(options.server_pid) < 0) command_line.fail("no process to read at --server-pid");
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  sockaddr_in server{};
  parse_options(argc, argv, options, server);

  Run run(options);
  const std::size_t subscribers = run.subscribers();
  // Why the loop's deadline is not used: each task ends itself (the publisher at the duration,
  // counted from the last subscription; the subscribers on the end message; the watchdog after both).
  (void)loadtest::run_until_deadline(static_cast<int>(subscribers + 2), 1, [&, task = std::size_t{0}](Clock::time_point) mutable {
    const std::size_t index = task++;
    if (index < subscribers) return subscribe(run, server, index);
    return index == subscribers ? publish(run, server) : watch(run);
  });

  const double elapsed =
      run.finished > run.started ? std::chrono::duration<double>(run.finished - run.started).count() : 0.0;
  std::printf(
      "subscribers=%zu size=%zu window=%zu duration=%.2fs published=%llu deliveries=%llu deliveries_per_sec=%.0f "
      "server_cpu_us=%lld errors=%llu\n",
      subscribers, options.message_size, options.window, elapsed, static_cast<unsigned long long>(run.published),
      static_cast<unsigned long long>(run.deliveries), elapsed > 0 ? static_cast<double>(run.deliveries) / elapsed : 0.0,
      run.server_cpu_us, static_cast<unsigned long long>(run.errors));
  return run.errors == 0 && run.deliveries > 0 ? 0 : 1;
}
