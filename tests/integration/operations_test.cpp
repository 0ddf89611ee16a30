// Operations through the real binary: log reopening on SIGUSR1, readiness and the
// drain delay, systemd's notify protocol, and dropping privileges after binding.
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "echo_client.hpp"
#include "raw_http.hpp"
#include "server_process.hpp"
#include "support/loopback_socket.hpp"

namespace tiffany::testing {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// Waits up to `timeout` for `needle` in the file at `path`; returns the file's text.
std::string wait_for_text(const std::string& path, const std::string& needle, std::chrono::milliseconds timeout = 5s) {
  const auto deadline = Clock::now() + timeout;
  std::string text = read_file(path);
  while (text.find(needle) == std::string::npos && Clock::now() < deadline) {
    std::this_thread::sleep_for(20ms);
    text = read_file(path);
  }
  return text;
}

// How many times each request id appears as the last field of a common-format access log line.
std::map<std::string, int> ids_in_access_log(const std::string& text) {
  std::map<std::string, int> ids;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) ++ids[line.substr(line.rfind(' ') + 1)];
  return ids;
}

const std::string kRoutes = R"("routes": [
    {"method": "GET", "path": "/health", "handler": "health"},
    {"method": "GET", "path": "/hello", "handler": "text", "body": "Hello"}])";

// ---------------------------------------------------------------- SIGUSR1 (SIGHUP: reload_test.cpp)

TEST(LogReopen, Sigusr1AfterARenameMovesBothLogsToNewFilesLosingAndDuplicatingNoLine) {
  const TempDir logs;
  const std::string access = logs.path() + "/access.log";
  const std::string errors = logs.path() + "/error.log";
  ServerProcess server(R"({"workers": 4, "access_log": {"path": ")" + access + R"("},
      "error_log": {"path": ")" + errors + R"("},
      "listeners": [{"name": "web", "address": "127.0.0.1:0", "protocol": "http", )" + kRoutes + "}]}");
  const int port = server.port_of("web", errors);
  ASSERT_GT(port, 0);

  // Four clients send requests with unique ids all through the rotation, one connection each
  // per request, so every worker logs lines around the moment of the signal.
  std::atomic<bool> stop{false};
  std::atomic<int> failed{0};
  std::mutex mutex;
  std::vector<std::string> sent;
  std::vector<std::thread> clients;
  for (int c = 0; c < 4; ++c) {
    clients.emplace_back([&, c] {
      for (int i = 0; !stop.load(); ++i) {
        const std::string id = "during-" + std::to_string(c) + "-" + std::to_string(i);
        if (status_of(get(port, "/hello", id)) != 200) {
          ++failed;
          continue;
        }
        std::lock_guard lock(mutex);
        sent.push_back(id);
      }
    });
  }
  std::this_thread::sleep_for(300ms);
  // Why wait for a line: access-log lines are buffered up to a second, and
  // under a sanitizer none may have reached the file yet; the old file must
  // hold some for the rotation to be tested mid-traffic.
  (void)wait_for_text(access, "during-");
  // logrotate's default: rename, then tell the server.
  ASSERT_EQ(std::rename(access.c_str(), (access + ".1").c_str()), 0);
  ASSERT_EQ(std::rename(errors.c_str(), (errors + ".1").c_str()), 0);
  server.send_signal(SIGUSR1);
  const std::string reopened = wait_for_text(errors, "SIGUSR1: reopened");
  EXPECT_NE(reopened.find("SIGUSR1: reopened the error log " + errors + " and the access log " + access),
            std::string::npos)
      << reopened;
  std::this_thread::sleep_for(300ms);
  stop = true;
  for (auto& client : clients) client.join();
  // Requests made after the reopen was logged: each must be in the new file.
  std::vector<std::string> after;
  for (int i = 0; i < 40; ++i) {
    after.push_back("after-" + std::to_string(i));
    EXPECT_EQ(status_of(get(port, "/hello", after.back())), 200);
  }
  server.send_signal(SIGTERM);
  ASSERT_EQ(server.wait_for_exit(10s), 0) << read_file(errors);
  EXPECT_EQ(failed.load(), 0);

  const std::map<std::string, int> in_old = ids_in_access_log(read_file(access + ".1"));
  const std::map<std::string, int> in_new = ids_in_access_log(read_file(access));
  ASSERT_GT(sent.size(), 50u) << "too few requests crossed the rotation to test it";
  for (const std::string& id : sent) {
    const int old_count = in_old.contains(id) ? in_old.at(id) : 0;
    const int new_count = in_new.contains(id) ? in_new.at(id) : 0;
    EXPECT_EQ(old_count + new_count, 1) << id << " is in the old log " << old_count << " times, in the new one "
                                        << new_count << " times";
  }
  for (const std::string& id : after) {
    EXPECT_EQ(in_new.contains(id) ? in_new.at(id) : 0, 1) << id << " should be in the new access log once";
    EXPECT_FALSE(in_old.contains(id)) << id << " was written to the renamed access log";
  }
  EXPECT_EQ(in_old.size() + in_new.size(), sent.size() + after.size()) << "lines nobody sent";
  EXPECT_GT(in_old.size(), 0u);

  const std::string old_errors = read_file(errors + ".1");
  const std::string new_errors = read_file(errors);
  EXPECT_NE(old_errors.find("listener \"web\" serving http"), std::string::npos) << old_errors;
  EXPECT_EQ(old_errors.find("SIGUSR1"), std::string::npos) << old_errors;
  EXPECT_NE(new_errors.find("SIGTERM received, draining"), std::string::npos) << new_errors;
  EXPECT_EQ(new_errors.find("listener \"web\" serving"), std::string::npos) << new_errors;
}

TEST(LogReopen, Sigusr1WithNothingRenamedKeepsAppendingToTheSameFiles) {
  const TempDir logs;
  const std::string access = logs.path() + "/access.log";
  const std::string errors = logs.path() + "/error.log";
  ServerProcess server(R"({"workers": 2, "access_log": {"path": ")" + access + R"("},
      "error_log": {"path": ")" + errors + R"("},
      "listeners": [{"name": "web", "address": "127.0.0.1:0", "protocol": "http", )" + kRoutes + "}]}");
  const int port = server.port_of("web", errors);
  ASSERT_GT(port, 0);
  EXPECT_EQ(status_of(get(port, "/hello", "first")), 200);
  server.send_signal(SIGUSR1);
  wait_for_text(errors, "SIGUSR1: reopened");
  EXPECT_EQ(status_of(get(port, "/hello", "second")), 200);
  server.send_signal(SIGTERM);
  ASSERT_EQ(server.wait_for_exit(10s), 0);
  const std::map<std::string, int> ids = ids_in_access_log(read_file(access));
  EXPECT_EQ(ids, (std::map<std::string, int>{{"first", 1}, {"second", 1}}));
  const std::string text = read_file(errors);
  EXPECT_LT(text.find("listener \"web\" serving"), text.find("SIGUSR1: reopened")) << text;
}

TEST(LogReopen, AFileThatCannotBeReopenedIsLoggedAndTheOldOneKept) {
  const TempDir logs;
  const std::string access = logs.path() + "/sub/access.log";
  ASSERT_EQ(::mkdir((logs.path() + "/sub").c_str(), 0755), 0);
  ServerProcess server(R"({"workers": 1, "access_log": {"path": ")" + access + R"("},
      "listeners": [{"name": "web", "address": "127.0.0.1:0", "protocol": "http", )" + kRoutes + "}]}");
  const int port = server.port_of("web");
  ASSERT_GT(port, 0);
  // The folder goes away: the new file cannot be created.
  ASSERT_EQ(std::rename((logs.path() + "/sub").c_str(), (logs.path() + "/moved").c_str()), 0);
  server.send_signal(SIGUSR1);
  const auto deadline = Clock::now() + 5s;
  while (server.err().find("SIGUSR1: access log") == std::string::npos && Clock::now() < deadline) {
    std::this_thread::sleep_for(20ms);
  }
  EXPECT_NE(server.err().find("[error] SIGUSR1: access log: cannot open \"" + access +
                              "\" for appending: No such file or directory; still writing to the old file"),
            std::string::npos)
      << server.err();
  EXPECT_EQ(status_of(get(port, "/hello", "kept")), 200);
  server.send_signal(SIGTERM);
  ASSERT_EQ(server.wait_for_exit(10s), 0);
  EXPECT_EQ(ids_in_access_log(read_file(logs.path() + "/moved/access.log")),
            (std::map<std::string, int>{{"kept", 1}}));
}

// ---------------------------------------------------------------- readiness

TEST(Readiness, DuringTheDrainDelayHealthSays503AndEveryResponseClosesThenTheServerDrains) {
  ServerProcess server(R"({"workers": 2, "drain_delay_ms": 1500, "listeners": [{"name": "web",
      "address": "127.0.0.1:0", "protocol": "http", )" + kRoutes + "}]}");
  const int port = server.port_of("web");
  ASSERT_GT(port, 0);
  const UniqueFd idle = connect_loopback(port);  // a keep-alive connection, idle when the signal comes
  const std::string before = get_on(idle.get(), "/health");
  EXPECT_EQ(status_of(before), 200) << before;
  EXPECT_FALSE(says_close(before));

  const auto signaled = Clock::now();
  server.send_signal(SIGTERM);
  std::this_thread::sleep_for(200ms);
  const std::string health = get(port, "/health");  // the listener still accepts
  EXPECT_EQ(status_of(health), 503) << health;
  EXPECT_NE(health.find("\r\n\r\ndraining"), std::string::npos) << health;
  EXPECT_TRUE(says_close(health)) << health;
  const std::string hello = get(port, "/hello");
  EXPECT_EQ(status_of(hello), 200) << "requests are still served during the delay";
  EXPECT_TRUE(says_close(hello)) << hello;
  const std::string on_idle = get_on(idle.get(), "/hello");
  EXPECT_EQ(status_of(on_idle), 200) << on_idle;
  EXPECT_TRUE(says_close(on_idle)) << "a kept-alive connection is told to go too: " << on_idle;
  // The checks above ran inside the delay: the server had not yet logged its end (an order, read
  // from the server's own log, not a bound on how long a loaded machine took to make them).
  EXPECT_EQ(server.err().find("SIGTERM received, draining"), std::string::npos)
      << "the checks above must run inside the delay: " << server.err();

  EXPECT_EQ(server.wait_for_exit(10s), 0);
  EXPECT_GE(Clock::now() - signaled, 1500ms) << "exited before drain_delay_ms";
  const std::string err = server.err();
  EXPECT_NE(err.find("SIGTERM received, serving 1500 ms more with health answering 503 and Connection: close, "
                     "then draining"),
            std::string::npos)
      << err;
  EXPECT_LT(err.find("serving 1500 ms more"), err.find("SIGTERM received, draining")) << err;
}

TEST(Readiness, HealthIsNever200BeforeEveryListenerIsUp) {
  // Probes /health on the first listener's port from before the process
  // starts; when the first 200 arrives, the error log must already name the
  // last listener (those lines are written before the process says ready).
  int port = 0;
  {
    const LoopbackSocket reserved(false);  // a free port, released at once for the server
    ASSERT_TRUE(reserved.fd.valid());
    port = reserved.port();
  }
  const TempDir logs;
  const std::string errors = logs.path() + "/error.log";
  std::atomic<bool> stop{false};
  std::atomic<bool> saw_ok{false};
  std::mutex mutex;
  std::string log_at_first_ok;
  // Why several probers, never pausing: the kernel spreads connections over
  // the workers' sockets, so some always wait on the first worker to start.
  std::vector<std::thread> probers;
  for (int p = 0; p < 8; ++p) {
    probers.emplace_back([&] {
      while (!stop.load() && !saw_ok.load()) {
        if (status_of(get(port, "/health")) != 200) continue;
        std::lock_guard lock(mutex);
        if (!saw_ok.load()) log_at_first_ok = read_file(errors);
        saw_ok = true;
      }
    });
  }
  std::string listeners;
  for (int i = 1; i < 8; ++i) {
    listeners += R"(, {"name": "extra)" + std::to_string(i) +
                 R"(", "address": "127.0.0.1:0", "protocol": "http", "routes": []})";
  }
  ServerProcess server(R"({"workers": 8, "error_log": {"path": ")" + errors + R"("}, "listeners": [{"name": "web",
      "address": "127.0.0.1:)" + std::to_string(port) + R"(", "protocol": "http", )" + kRoutes + "}" + listeners + "]}");
  EXPECT_GT(server.port_of("extra7", errors), 0);
  const auto deadline = Clock::now() + 10s;
  while (!saw_ok.load() && Clock::now() < deadline) std::this_thread::sleep_for(10ms);
  stop = true;
  for (auto& prober : probers) prober.join();
  ASSERT_TRUE(saw_ok.load()) << "health never said 200";
  EXPECT_NE(log_at_first_ok.find("listener \"extra7\" serving"), std::string::npos)
      << "health said 200 before the last listener was up:\n"
      << log_at_first_ok;
  server.send_signal(SIGTERM);
  EXPECT_EQ(server.wait_for_exit(10s), 0);
}

// ---------------------------------------------------------------- systemd notify

// A datagram socket standing in for systemd's notify socket.
class NotifySocket {
 public:
  /// `name`: an absolute path, or '@' and an abstract name.
  explicit NotifySocket(std::string name) : name_(std::move(name)), fd_(::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)) {
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::memcpy(address.sun_path, name_.data(), name_.size());
    if (name_.front() == '@') address.sun_path[0] = '\0';
    const auto length = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + name_.size());
    bound_ = fd_ && ::bind(fd_.get(), reinterpret_cast<sockaddr*>(&address), length) == 0;
  }
  bool bound() const { return bound_; }
  const std::string& name() const { return name_; }
  /// The next datagram, or "" after `timeout`.
  std::string receive(std::chrono::milliseconds timeout = 10s) const {
    pollfd p{fd_.get(), POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(timeout.count())) <= 0) return "";
    char buffer[4096];
    const ssize_t n = ::recv(fd_.get(), buffer, sizeof buffer, 0);
    return n > 0 ? std::string(buffer, static_cast<std::size_t>(n)) : "";
  }

 private:
  std::string name_;
  UniqueFd fd_;
  bool bound_ = false;
};

// Starts the server with NOTIFY_SOCKET set to `socket`'s name and checks the
// whole conversation: READY=1 once listening, RELOADING=1 and READY=1 on SIGHUP,
// STOPPING=1 when the drain begins.
void expect_ready_then_stopping(const NotifySocket& socket) {
  ASSERT_TRUE(socket.bound()) << socket.name() << ": " << std::strerror(errno);
  ServerProcess server({"env", "NOTIFY_SOCKET=" + socket.name()},
                       R"({"workers": 2, "drain_delay_ms": 300, "listeners": [{"name": "web", "address": "127.0.0.1:0",
                           "protocol": "http", )" + kRoutes + R"(}, {"name": "echo", "address": "127.0.0.1:0",
                           "protocol": "echo"}]})");
  const std::string ready = socket.receive();
  EXPECT_EQ(ready, "READY=1") << server.err();
  // READY=1 promises every listener is up: both answer at once, and health says so.
  const std::string err = server.err();
  EXPECT_NE(err.find("listener \"web\" serving"), std::string::npos) << err;
  EXPECT_NE(err.find("listener \"echo\" serving"), std::string::npos) << err;
  const int port = server.port_of("web");
  ASSERT_GT(port, 0);
  EXPECT_EQ(status_of(get(port, "/health")), 200);
  EXPECT_EQ(socket.receive(200ms), "") << "one READY=1, nothing else while serving";
  // A reload: RELOADING=1 with the time it began, then READY=1 once the new configuration serves.
  server.send_signal(SIGHUP);
  const std::string reloading = socket.receive();
  EXPECT_TRUE(reloading.starts_with("RELOADING=1\nMONOTONIC_USEC=")) << reloading;
  EXPECT_EQ(socket.receive(), "READY=1") << server.err();
  EXPECT_NE(server.err().find("reloaded: configuration 2 serves"), std::string::npos) << server.err();
  EXPECT_EQ(status_of(get(port, "/health")), 200);
  server.send_signal(SIGTERM);
  EXPECT_EQ(socket.receive(), "STOPPING=1");
  EXPECT_EQ(status_of(get(port, "/health")), 503) << "STOPPING=1 comes with health's 503";
  EXPECT_EQ(server.wait_for_exit(10s), 0);
}

TEST(SystemdNotify, SendsReadyOnceEveryListenerIsUpReloadingOnSighupAndStoppingOnSigtermToAnAbstractSocket) {
  expect_ready_then_stopping(NotifySocket("@tiffany-notify-test-" + std::to_string(::getpid())));
}

TEST(SystemdNotify, SendsReadyAndStoppingToASocketPath) {
  const TempDir dir;
  expect_ready_then_stopping(NotifySocket(dir.path() + "/notify"));
}

TEST(SystemdNotify, ABadNotifySocketRefusesToStart) {
  const TempDir dir;
  const std::string config = dir.write("t.json", R"({"listeners": [{"name": "web", "address": "127.0.0.1:0",
      "protocol": "http", "routes": []}]})");
  const RunResult run = run_program("env", {"NOTIFY_SOCKET=relative/path", tiffany_binary(), "--config", config});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("NOTIFY_SOCKET \"relative/path\" is neither an absolute path nor an @abstract name"),
            std::string::npos)
      << run.err;
}

// ---------------------------------------------------------------- privileges

// The four ids (real, effective, saved, file system) of a /proc/<pid>/status line such as "Uid:".
std::string ids_of(pid_t pid, const std::string& field) {
  std::istringstream status(read_file("/proc/" + std::to_string(pid) + "/status"));
  std::string line;
  while (std::getline(status, line)) {
    if (line.starts_with(field)) {
      std::istringstream values(line.substr(field.size()));
      std::string id, all;
      while (values >> id) all += (all.empty() ? "" : " ") + id;
      return all;
    }
  }
  return "";
}

TEST(Privileges, AfterBindingTheServerRunsAsTheConfiguredUserAndGroupAndServes) {
  ASSERT_EQ(::geteuid(), 0u) << "this test checks the drop from root";
  const TempDir logs;
  const std::string errors = logs.path() + "/error.log";
  ServerProcess server(R"({"workers": 2, "user": "nobody", "group": "nogroup",
      "error_log": {"path": ")" + errors + R"("},
      "listeners": [{"name": "web", "address": "127.0.0.1:0", "protocol": "http", )" + kRoutes + "}]}");
  const int port = server.port_of("web", errors);
  ASSERT_GT(port, 0);
  EXPECT_EQ(ids_of(server.pid(), "Uid:"), "65534 65534 65534 65534");
  EXPECT_EQ(ids_of(server.pid(), "Gid:"), "65534 65534 65534 65534");
  EXPECT_EQ(ids_of(server.pid(), "Groups:"), "65534") << "root's supplementary groups are gone";
  // Every thread (the workers too) runs as nobody.
  std::size_t threads = 0;
  for (const auto& task : std::filesystem::directory_iterator("/proc/" + std::to_string(server.pid()) + "/task")) {
    const std::string status = read_file(task.path().string() + "/status");
    EXPECT_NE(status.find("Uid:\t65534\t65534\t65534\t65534"), std::string::npos) << task.path();
    ++threads;
  }
  EXPECT_GE(threads, 3u);
  EXPECT_EQ(status_of(get(port, "/hello")), 200);
  EXPECT_EQ(status_of(get(port, "/health")), 200);
  EXPECT_NE(read_file(errors).find("running as user nobody (uid 65534), group nogroup (gid 65534)"),
            std::string::npos)
      << read_file(errors);
  server.send_signal(SIGTERM);
  EXPECT_EQ(server.wait_for_exit(10s), 0);
}

TEST(Privileges, AnUnknownUserRefusesToStartWithAConfigError) {
  const TempDir dir;
  const std::string config = dir.write("t.json", R"({"user": "no-such-user-tiffany", "listeners": [{"name": "web",
      "address": "127.0.0.1:0", "protocol": "http", "routes": []}]})");
  for (const bool check_only : {false, true}) {
    std::vector<std::string> args{"--config", config};
    if (check_only) args.push_back("--check-config");
    const RunResult run = run_tiffany(args);
    EXPECT_EQ(run.exit_code, 1) << check_only;
    EXPECT_NE(run.err.find("tiffany: config error: " + config + ": $.user: no user \"no-such-user-tiffany\" on "
                           "this system"),
              std::string::npos)
        << run.err;
  }
  const std::string bad_group = dir.write("g.json", R"({"user": "nobody", "group": "no-such-group-tiffany",
      "listeners": [{"name": "web", "address": "127.0.0.1:0", "protocol": "http", "routes": []}]})");
  const RunResult run = run_tiffany({"--config", bad_group});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("$.group: no group \"no-such-group-tiffany\" on this system"), std::string::npos) << run.err;
}

}  // namespace
}  // namespace tiffany::testing
