// ws_load: a WebSocket load client on Tiffany's own reactor. N connections each upgrade
// (HTTP/1.1, checking the 101 and its Sec-WebSocket-Accept, offering no extension), then
// send one masked binary message, wait for the whole echoed message back, and repeat until
// the duration is over; prints messages/s and round-trip latency percentiles, in the
// fields echo_load prints.
#include <netinet/in.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include <tiffany/reactor/recv.hpp>
#include <tiffany/reactor/send.hpp>

#include "http/internal/websocket/message_reader.hpp"
#include "loadtest/load_options.hpp"
#include "loadtest/load_run.hpp"
#include "loadtest/ws_client.hpp"

namespace {

using namespace tiffany;
using loadtest::Clock;
namespace ws = http::websocket;

struct Options {
  loadtest::LoadOptions load{.port = 7000, .connections = 64};
  std::size_t message_size = 512;
  std::string path = "/ws";
  bool verify = false;
};

struct Totals {
  std::uint64_t messages = 0;
  std::uint64_t errors = 0;
  std::vector<float> latencies_us;  // one per message
};

// Parses the command line into `options` and the server's address; exits with the usage on a problem.
void parse_options(int argc, char** argv, Options& options, sockaddr_in& server) {
  const loadtest::CommandLine command_line("ws_load", options.load, "[--size 512] [--path /ws] [--verify]");
  command_line.parse(argc, argv, options.load, server, {"--verify"}, [&](std::string_view flag, const char* value) {
    if (flag == "--size") {
      options.message_size = static_cast<std::size_t>(std::atol(value));
    } else if (flag == "--path") {
      options.path = value;
    } else if (flag == "--verify") {
      options.verify = true;
    } else {
      return false;
    }
    return true;
  });
  if (options.message_size < 1) command_line.fail("size must be positive");
  if (options.path.empty() || options.path.front() != '/') command_line.fail("path must start with /");
}

// Counts an error; the first few are printed, so a run that fails says why.
void count_error(Totals& totals, const std::string& why) {
  if (++totals.errors <= 3) std::fprintf(stderr, "ws_load: %s\n", why.c_str());
}

// xorshift32: a cheap masking key per frame (§5.3 wants them unpredictable to
// intermediaries; a benchmark needs them to vary, which is what servers pay for).
std::uint32_t next_mask(std::uint32_t& state) {
  state ^= state << 13;
  state ^= state >> 17;
  state ^= state << 5;
  return state;
}

// Sends all of `data`; false on an error.
Task<bool> send_all(int fd, std::string_view data) {
  for (std::size_t sent = 0; sent < data.size();) {
    const IoResult put = co_await Send{fd, data.data() + sent, data.size() - sent};
    if (!put) co_return false;
    sent += put.bytes();
  }
  co_return true;
}

// The opening handshake: sends the upgrade, reads the response head and checks it.
// Returns "" or the problem; bytes after the head (frames already sent) go to `leftover`.
Task<std::string> upgrade(int fd, const Options& options, std::uint64_t seed, std::string& leftover) {
  const std::string key = loadtest::websocket_key(seed);
  const std::string request = loadtest::upgrade_request(options.path, key);
  const bool sent = co_await send_all(fd, request);
  if (!sent) co_return "sending the upgrade failed";
  std::string head;
  std::vector<char> buffer(4096);
  std::size_t end = std::string::npos;
  while (end == std::string::npos) {
    const IoResult r = co_await Recv{fd, buffer.data(), buffer.size()};
    if (!r || r.bytes() == 0) co_return "the connection ended before the upgrade's answer";
    head.append(buffer.data(), r.bytes());
    end = head.find("\r\n\r\n");
    if (end == std::string::npos && head.size() > 16384) co_return "an answer head over 16 KiB";
  }
  leftover = head.substr(end + 4);
  head.resize(end + 4);
  co_return loadtest::check_upgrade_response(head, key);
}

// One connection: upgrade, then send a message, read its echo in full, repeat until `deadline`.
Task<void> drive_connection(const Options& options, const sockaddr_in& server, Clock::time_point deadline,
                            std::uint32_t seed, Totals& totals) {
  const UniqueFd fd = co_await loadtest::connect_tcp(server, "ws_load");
  if (!fd) {
    ++totals.errors;
    co_return;
  }
  std::string leftover;
  const std::string problem = co_await upgrade(fd.get(), options, seed, leftover);
  if (!problem.empty()) {
    count_error(totals, "upgrade: " + problem);
    co_return;
  }
  std::string message(options.message_size, '\0');
  for (std::size_t i = 0; i < message.size(); ++i) message[i] = static_cast<char>('a' + i % 26);
  ws::MessageReader reader(ws::ReaderLimits{.max_message_bytes = std::max<std::size_t>(options.message_size, 1 << 20),
                                            .require_mask = false});
  std::vector<char> buffer(std::max<std::size_t>(options.message_size + 16, 16384));
  std::string_view pending = leftover;  // received bytes the reader has not taken yet
  std::string frame;
  std::uint32_t mask_state = seed | 1;

  while (Clock::now() < deadline) {
    const auto start = Clock::now();
    frame.clear();
    loadtest::append_masked_frame(frame, ws::Opcode::binary, message, next_mask(mask_state));
    const bool sent = co_await send_all(fd.get(), frame);
    if (!sent) {
      count_error(totals, "send failed");
      co_return;
    }
    bool echoed = false;
    while (!echoed) {
      if (pending.empty()) {
        const IoResult r = co_await Recv{fd.get(), buffer.data(), buffer.size()};
        if (!r || r.bytes() == 0) {
          count_error(totals, "the server ended the connection");
          co_return;
        }
        pending = std::string_view(buffer.data(), r.bytes());
      }
      ws::Event event = reader.next(pending);
      switch (event.kind) {
        case ws::Event::Kind::need_more:
        case ws::Event::Kind::pong:
          break;
        case ws::Event::Kind::message:
          echoed = true;
          if (event.text || event.payload.size() != message.size() || (options.verify && event.payload != message)) {
            count_error(totals, "an echo that differs from the message sent");
          }
          break;
        case ws::Event::Kind::ping: {
          std::string pong;
          loadtest::append_masked_frame(pong, ws::Opcode::pong, event.payload, next_mask(mask_state));
          const bool answered = co_await send_all(fd.get(), pong);
          if (!answered) {
            count_error(totals, "send failed");
            co_return;
          }
          break;
        }
        case ws::Event::Kind::close:
          count_error(totals, "the server closed with " + std::to_string(event.code));
          co_return;
        case ws::Event::Kind::error:
          count_error(totals, "a bad frame from the server: " + event.why);
          co_return;
      }
    }
    ++totals.messages;
    totals.latencies_us.push_back(std::chrono::duration<float, std::micro>(Clock::now() - start).count());
  }
  // Why a close frame: the server then ends the connection as a client's close asks, not as a lost one.
  frame.clear();
  loadtest::append_masked_close(frame, ws::close_code::normal, next_mask(mask_state));
  (void)co_await send_all(fd.get(), frame);
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
  std::uint32_t connection = 0;
  const double elapsed = loadtest::run_until_deadline(
      options.load.connections, options.load.duration_seconds, [&](Clock::time_point deadline) {
        return drive_connection(options, server, deadline, 0x9e3779b9u * ++connection, totals);
      });

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
