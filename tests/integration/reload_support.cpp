// Helpers of the reload, upgrade and cluster tests.
#include "reload_support.hpp"

#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <algorithm>
#include <string_view>
#include <thread>

#include "support/loopback_socket.hpp"

namespace tiffany::testing {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

int free_port() {
  const LoopbackSocket probe(false);
  return probe.port();
}

bool wait_for_log(const ServerProcess& server, const std::string& needle, int count) {
  const auto deadline = Clock::now() + 10s;
  for (;;) {
    const std::string text = server.err();
    int seen = 0;
    for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++seen;
    if (seen >= count) return true;
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(20ms);
  }
}

WrkResult run_wrk(const std::string& url, std::chrono::seconds duration, int connections) {
  const RunResult wrk = run_program("wrk", {"-t", "2", "-c", std::to_string(connections), "-d",
                                            std::to_string(duration.count()) + "s", url},
                                    duration + 30s);
  WrkResult result;
  result.out = wrk.out + wrk.err;
  if (wrk.exit_code != 0) {
    result.errors = -1;
    return result;
  }
  // Why no std::regex: g++ 12 under ASan warns inside <regex> (a false -Wmaybe-uninitialized).
  const auto line_at = [&](std::string_view marker) {
    const auto at = wrk.out.find(marker);
    return at == std::string::npos ? std::string_view()
                                   : std::string_view(wrk.out).substr(at, wrk.out.find('\n', at) - at);
  };
  const auto first_number = [](std::string_view text) {
    const auto digit = text.find_first_of("0123456789");
    return digit == std::string_view::npos ? 0L : std::stol(std::string(text.substr(digit)));
  };
  // "  530194 requests in 9.02s, 103.66MB read": the count starts the line.
  const auto requests_at = wrk.out.find(" requests in ");
  if (requests_at != std::string::npos) {
    const auto line_start = wrk.out.rfind('\n', requests_at);
    result.requests = first_number(std::string_view(wrk.out).substr(line_start == std::string::npos ? 0 : line_start));
  }
  // "  Socket errors: connect 0, read 3, write 0, timeout 0": every number of the line.
  std::string_view socket_errors = line_at("Socket errors:");
  while (!socket_errors.empty()) {
    const auto digit = socket_errors.find_first_of("0123456789");
    if (digit == std::string_view::npos) break;
    socket_errors.remove_prefix(digit);
    result.errors += first_number(socket_errors);
    socket_errors.remove_prefix(std::min(socket_errors.find_first_not_of("0123456789"), socket_errors.size()));
  }
  // "  Non-2xx or 3xx responses: 394074"
  const std::string_view non_2xx = line_at("Non-2xx or 3xx responses:");
  if (!non_2xx.empty()) result.errors += first_number(non_2xx.substr(non_2xx.find(':')));
  return result;
}

pid_t upgraded_pid(const std::string& log) {
  const auto started = log.find("upgrade: started ");
  if (started == std::string::npos) return 0;
  const std::string marker = " as process ";
  const auto at = log.find(marker, started);
  return at == std::string::npos ? 0 : static_cast<pid_t>(std::stol(log.substr(at + marker.size())));
}

bool running(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string pid_field;
  std::string name;
  char state = 0;
  return static_cast<bool>(stat >> pid_field >> name >> state) && state != 'Z';
}

StopOnExit::~StopOnExit() {
  if (pid <= 0) return;
  ::kill(pid, SIGTERM);
  for (int i = 0; i < 200 && running(pid); ++i) std::this_thread::sleep_for(50ms);
  if (running(pid)) ::kill(pid, SIGKILL);
}

void install_file(const std::string& from, const std::string& to) {
  std::filesystem::copy_file(from, to + ".new");
  std::filesystem::rename(to + ".new", to);
}

}  // namespace tiffany::testing
