// Helpers of the reload, upgrade and cluster tests.
#include "reload_support.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <thread>

#include "echo_client.hpp"
#include "support/loopback_socket.hpp"

namespace tiffany::testing {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

std::string read_response(int fd) {
  std::string data;
  char buffer[4096];
  const auto deadline = Clock::now() + 5s;
  for (;;) {
    const auto end = data.find("\r\n\r\n");
    if (end != std::string::npos) {
      const auto length_at = data.find("Content-Length: ");
      const std::size_t length = length_at == std::string::npos ? 0 : std::stoul(data.substr(length_at + 16));
      if (data.size() >= end + 4 + length) return data.substr(0, end + 4 + length);
    }
    if (Clock::now() >= deadline) return "";
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;
    const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
    if (n <= 0) return "";
    data.append(buffer, static_cast<std::size_t>(n));
  }
}

bool send_all(int fd, const std::string& bytes) {
  return ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(bytes.size());
}

std::string get_on(int fd, const std::string& path) {
  if (!send_all(fd, "GET " + path + " HTTP/1.1\r\nHost: t\r\n\r\n")) return "";
  return read_response(fd);
}

std::string get(int port, const std::string& path) {
  const UniqueFd fd = connect_loopback(port);
  return fd ? get_on(fd.get(), path) : "";
}

std::string body_of(const std::string& response) {
  const auto end = response.find("\r\n\r\n");
  return end == std::string::npos ? "" : response.substr(end + 4);
}

bool says_close(const std::string& response) { return response.find("\r\nConnection: close\r\n") != std::string::npos; }

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
  std::smatch match;
  if (std::regex_search(wrk.out, match, std::regex(R"((\d+) requests in)"))) result.requests = std::stol(match[1]);
  if (std::regex_search(wrk.out, match,
                        std::regex(R"(Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+))"))) {
    for (int i = 1; i <= 4; ++i) result.errors += std::stol(match[i]);
  }
  if (std::regex_search(wrk.out, match, std::regex(R"(Non-2xx or 3xx responses: (\d+))"))) {
    result.errors += std::stol(match[1]);
  }
  return result;
}

pid_t upgraded_pid(const std::string& log) {
  std::smatch match;
  if (!std::regex_search(log, match, std::regex(R"(upgrade: started \S+ as process (\d+))"))) return 0;
  return static_cast<pid_t>(std::stol(match[1]));
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
