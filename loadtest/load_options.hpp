// load_options.hpp: the command line of loadtest's clients — "--flag value" walking, the
// options every timed client takes (host, port, connections, duration), its IPv4 address
// and the usage message that ends a bad command line.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

namespace tiffany::loadtest {

/// Walks argv[1..] as "--flag value" pairs and bare switches (the flags named in
/// `switches`), calling `on_flag(flag, value)` for each (value is "" for a switch);
/// `on_flag` returns false for a flag it does not take. Returns the first problem
/// (an unknown flag, or a flag without its value), or "" when every argument was taken.
template <typename OnFlag>
std::string walk_flags(int argc, char** argv, std::initializer_list<std::string_view> switches, OnFlag&& on_flag) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view flag = argv[i];
    bool is_switch = false;
    for (const std::string_view name : switches) is_switch = is_switch || name == flag;
    const bool taken = (is_switch || i + 1 < argc) && on_flag(flag, is_switch ? "" : argv[++i]);
    if (!taken) return "unknown or incomplete argument " + std::string(flag);
  }
  return {};
}

/// What every timed load client is told: where the server is, how many connections
/// to run at once, and for how long.
struct LoadOptions {
  std::string host = "127.0.0.1";
  int port = 0;
  int connections = 1;
  double duration_seconds = 5;

  /// Takes --host, --port, --connections and --duration; false for any other flag.
  bool take(std::string_view flag, const char* value) {
    if (flag == "--host") {
      host = value;
    } else if (flag == "--port") {
      port = std::atoi(value);
    } else if (flag == "--connections") {
      connections = std::atoi(value);
    } else if (flag == "--duration") {
      duration_seconds = std::atof(value);
    } else {
      return false;
    }
    return true;
  }

  /// At least one connection, a positive duration and a port in 1..65535.
  bool valid() const { return connections >= 1 && duration_seconds > 0 && port >= 1 && port <= 65535; }

  /// host:port as a socket address; false when host is not a dotted IPv4 address.
  bool address(sockaddr_in& out) const {
    out = sockaddr_in{};
    out.sin_family = AF_INET;
    out.sin_port = htons(static_cast<std::uint16_t>(port));
    return inet_pton(AF_INET, host.c_str(), &out.sin_addr) == 1;
  }
};

/// A timed load client's command line: the flags of LoadOptions and the client's own.
class CommandLine {
 public:
  /// `defaults` fill the usage text; `own_flags` is the usage of the client's own flags,
  /// e.g. "[--size 512] [--verify]".
  CommandLine(std::string program, const LoadOptions& defaults, const std::string& own_flags)
      : program_(std::move(program)),
        usage_("usage: " + program_ + " [--host " + defaults.host + "] [--port " + std::to_string(defaults.port) +
               "] [--connections " + std::to_string(defaults.connections) + "] [--duration " +
               std::to_string(static_cast<int>(defaults.duration_seconds)) + "]\n" +
               std::string(program_.size() + 8, ' ') + own_flags + "\n") {}

  /// Prints "<program>: <problem>" and the usage to stderr, and exits with status 2.
  [[noreturn]] void fail(const std::string& problem) const {
    std::fprintf(stderr, "%s: %s\n%s", program_.c_str(), problem.c_str(), usage_.c_str());
    std::exit(2);
  }

  /// Parses argv: the common flags into `load`, the others through `on_flag` (as
  /// walk_flags does). Fails on an unknown flag, on a count, duration or port that is
  /// not positive, and on a host that is not an IPv4 address; sets `server` to the address.
  template <typename OnFlag>
  void parse(int argc, char** argv, LoadOptions& load, sockaddr_in& server,
             std::initializer_list<std::string_view> switches, OnFlag&& on_flag) const {
    const std::string problem = walk_flags(argc, argv, switches, [&](std::string_view flag, const char* value) {
      return load.take(flag, value) || on_flag(flag, value);
    });
    if (!problem.empty()) fail(problem);
    if (!load.valid()) fail("connections, duration and port must be positive");
    if (!load.address(server)) fail("--host must be an IPv4 address");
  }

 private:
  std::string program_;
  std::string usage_;
};

}  // namespace tiffany::loadtest
