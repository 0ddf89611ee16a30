// Helpers of the reload, upgrade and cluster tests: raw HTTP/1.1 requests, waiting for log lines,
// wrk's verdict, and the process an upgrade started.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>

#include "server_process.hpp"

namespace tiffany::testing {

/// Reads one response (head + Content-Length body) from `fd`; "" if the
/// connection ended first or nothing complete came within 5 s.
std::string read_response(int fd);
bool send_all(int fd, const std::string& bytes);
/// One GET on `fd`, or on a new connection to 127.0.0.1:`port`; "" on failure.
std::string get_on(int fd, const std::string& path);
std::string get(int port, const std::string& path);
std::string body_of(const std::string& response);
bool says_close(const std::string& response);

/// A port free on 127.0.0.1 a moment ago (bound and released), for configs
/// that must name their port.
int free_port();

/// Waits up to 10 s for the `count`-th occurrence of `needle` in the server's standard error.
bool wait_for_log(const ServerProcess& server, const std::string& needle, int count = 1);

/// What wrk reported: its output, the requests it completed, and the failed
/// ones (socket errors of every kind plus non-2xx/3xx responses).
struct WrkResult {
  std::string out;
  long requests = 0;
  long errors = 0;
};
/// Runs wrk (2 threads, `connections`) against `url` for `duration`.
WrkResult run_wrk(const std::string& url, std::chrono::seconds duration, int connections = 32);

/// The process an upgrade started, from the old one's log line "upgrade:
/// started ... as process N"; 0 if absent.
pid_t upgraded_pid(const std::string& log);
/// A process that is still running (not gone, not a zombie).
bool running(pid_t pid);

/// Stops an upgraded process on destruction (SIGTERM, then SIGKILL after
/// 10 s). Why: it is not the test's child (its parent, the old server, has
/// exited), so nothing else would.
struct StopOnExit {
  pid_t pid = 0;
  StopOnExit() = default;
  explicit StopOnExit(pid_t started) : pid(started) {}
  StopOnExit(const StopOnExit&) = delete;
  StopOnExit& operator=(const StopOnExit&) = delete;
  ~StopOnExit();
};

/// Installs a file as package managers do: written beside, renamed over.
void install_file(const std::string& from, const std::string& to);

}  // namespace tiffany::testing
