// The error log end to end: the real binary writing to an error_log file at a
// level, with a failing plugin handler; and an unopenable file refused at start-up.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <thread>

#include "server_process.hpp"
#include "support/log_lines.hpp"
#include "support/loopback_socket.hpp"

namespace tiffany::testing {
namespace {

using namespace std::chrono_literals;

const std::string kPlugins = under_test(TIFFANY_PLUGIN_DIR);

RunResult curl(const std::string& url) { return run_program("curl", {"-sS", "-i", "--max-time", "20", url}); }

// A port nothing listens on right now (bound once by the kernel's choice, then released).
int free_port() {
  const LoopbackSocket socket(false);
  EXPECT_TRUE(socket.fd.valid());
  return socket.port();
}

// True once 127.0.0.1:`port` accepts a connection (within 10 s).
bool wait_until_listening(int port) {
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (std::chrono::steady_clock::now() < deadline) {
    const UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<std::uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&address), sizeof address) == 0) return true;
    std::this_thread::sleep_for(20ms);
  }
  return false;
}

// Waits up to 5 s for `needle` to appear in the file at `path`; returns the file.
std::string wait_for_text(const std::string& path, const std::string& needle) {
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  std::string text = read_file(path);
  while (text.find(needle) == std::string::npos && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(20ms);
    text = read_file(path);
  }
  return text;
}

std::string folder_of(const std::string& file) { return file.substr(0, file.rfind('/')); }

// The value of header `name` in an HTTP response head, or "".
std::string header_value(const std::string& response, const std::string& name) {
  const std::size_t at = response.find("\r\n" + name + ": ");
  if (at == std::string::npos) return "";
  const std::size_t start = at + name.size() + 4;
  return response.substr(start, response.find("\r\n", start) - start);
}

bool is_generated_request_id(const std::string& id) {
  return id.size() == 32 && id.find_first_not_of("0123456789abcdef") == std::string::npos;
}

TEST(ErrorLogFile, AtWarnHoldsHandlerFailuresAndTimeoutsButNotTheStartUpLines) {
  const int port = free_port();
  ServerProcess server(R"({"workers": 1, "error_log": {"path": "error.log", "level": "warn"},
      "access_log": {"path": "access.log", "format": "json"},
      "plugins": [")" + kPlugins + R"(/libhello.so", ")" + kPlugins + R"(/libfanout.so"],
      "listeners": [{"name": "web", "address": "127.0.0.1:)" + std::to_string(port) + R"(", "protocol": "http",
        "timeouts": {"handler_ms": 100},
        "routes": [{"method": "GET", "path": "/fail", "handler": "hello.fail"},
                   {"method": "GET", "path": "/slow", "handler": "fanout.sleepers", "children": 1,
                    "delay_ms": 2000}]}]})");
  const std::string log_path = folder_of(server.config_path()) + "/error.log";  // relative to the config file
  ASSERT_TRUE(wait_until_listening(port)) << server.err() << read_file(log_path);

  // The client's request id is kept; without one the server makes one. Either
  // way it is echoed, and it names the request in the error and access logs.
  const RunResult failed = run_program(
      "curl", {"-sS", "-i", "--max-time", "20", "-H", "X-Request-Id: trace-fail-1",
               "http://127.0.0.1:" + std::to_string(port) + "/fail"});
  EXPECT_NE(failed.out.find("HTTP/1.1 500 Internal Server Error"), std::string::npos) << failed.out;
  EXPECT_EQ(header_value(failed.out, "X-Request-Id"), "trace-fail-1") << failed.out;
  const RunResult slow = curl("http://127.0.0.1:" + std::to_string(port) + "/slow");
  EXPECT_NE(slow.out.find("HTTP/1.1 503 Service Unavailable"), std::string::npos) << slow.out;
  const std::string slow_id = header_value(slow.out, "X-Request-Id");
  EXPECT_TRUE(is_generated_request_id(slow_id)) << slow.out;

  const std::string log = wait_for_text(log_path, "timed out on GET /slow");
  const std::vector<std::string> messages = log_messages(log);
  EXPECT_TRUE(has_message(messages, "[error] worker 0: handler \"hello.fail\" from plugin " + kPlugins +
                                        "/libhello.so failed on GET /fail: hello.fail always fails, "
                                        "request_id: trace-fail-1"))
      << log;
  EXPECT_TRUE(has_message(messages, "[warn] worker 0: handler \"fanout.sleepers\" from plugin " + kPlugins +
                                        "/libfanout.so timed out on GET /slow after 100 ms, request_id: " + slow_id))
      << log;
  const std::string access_path = folder_of(server.config_path()) + "/access.log";
  server.send_signal(SIGTERM);  // the access log is flushed at exit
  EXPECT_EQ(server.wait_for_exit(10s), 0) << server.err();
  const std::string access = read_file(access_path);
  EXPECT_NE(access.find(R"("path":"/fail","query":"","status":500,)"), std::string::npos) << access;
  EXPECT_NE(access.find(R"("request_id":"trace-fail-1","user":""})"), std::string::npos) << access;
  EXPECT_NE(access.find(R"("request_id":")" + slow_id + "\",\"user\":\"\"}"), std::string::npos) << access;
  // Start-up lines are notices (and plugin loads info): below warn, so not written at all.
  EXPECT_EQ(log.find("serving"), std::string::npos) << log;
  EXPECT_EQ(log.find("[notice]"), std::string::npos) << log;
  EXPECT_EQ(log.find("[info]"), std::string::npos) << log;
  // Everything went to the file: nothing on standard error.
  EXPECT_EQ(server.err(), "");
  EXPECT_EQ(read_file(log_path).find("SIGTERM received"), std::string::npos);  // a notice too
}

TEST(ErrorLogFile, ASlowTaskWarningNamesTheRouteHandlerPluginAndRequest) {
  const int port = free_port();
  const std::string plugin = under_test(TIFFANY_TEST_PLUGIN_DIR) + "/libblocking_plugin.so";
  ServerProcess server(R"({"workers": 1, "error_log": {"path": "error.log", "level": "warn"},
      "scheduler": {"slow_task_warning_ms": 50},
      "plugins": [")" + plugin + R"("],
      "listeners": [{"name": "web", "address": "127.0.0.1:)" + std::to_string(port) + R"(", "protocol": "http",
        "routes": [{"method": "GET", "path": "/reports/:id", "handler": "blocking.sleep"}]}]})");
  const std::string log_path = folder_of(server.config_path()) + "/error.log";
  ASSERT_TRUE(wait_until_listening(port)) << server.err() << read_file(log_path);
  const RunResult blocked = run_program(
      "curl", {"-sS", "-i", "--max-time", "20", "-H", "X-Request-Id: slow-1",
               "http://127.0.0.1:" + std::to_string(port) + "/reports/7"});
  EXPECT_NE(blocked.out.find("HTTP/1.1 200 OK"), std::string::npos) << blocked.out;
  const std::string log = wait_for_text(log_path, "without suspending");
  const std::string culprit = "(did it forget to yield?): handler \"blocking.sleep\" from plugin " + plugin +
                              " on route /reports/:id, request_id: slow-1\n";
  EXPECT_NE(log.find("[warn] worker 0: task "), std::string::npos) << log;
  EXPECT_NE(log.find(culprit), std::string::npos) << log;
  server.send_signal(SIGTERM);
  EXPECT_EQ(server.wait_for_exit(10s), 0) << server.err();
}

TEST(ErrorLogFile, AtInfoHoldsTheStartUpAndDrainLines) {
  TempDir dir;
  const std::string log_path = dir.path() + "/error.log";
  ServerProcess server(R"({"workers": 1, "error_log": {"path": ")" + log_path + R"(", "level": "info"},
      "plugins": [")" + kPlugins + R"(/libhello.so"],
      "listeners": [{"name": "web", "address": "127.0.0.1:0", "protocol": "http",
        "routes": [{"method": "GET", "path": "/fail", "handler": "hello.fail"}]}]})");
  const int port = server.port_of("web", log_path);
  ASSERT_GT(port, 0);
  server.send_signal(SIGTERM);
  EXPECT_EQ(server.wait_for_exit(10s), 0) << server.err();

  const std::string log = read_file(log_path);
  const std::vector<std::string> messages = log_messages(log);
  for (const std::string& line :
       {"[info] loaded plugin " + kPlugins + "/libhello.so",
        "[notice] listener \"web\" serving http on 127.0.0.1:" + std::to_string(port),
        std::string("[notice] SIGTERM received, draining (up to 10000 ms; a second signal exits at once)"),
        std::string("[notice] stopped")}) {
    EXPECT_TRUE(has_message(messages, line)) << line << " not in:\n" << log;
  }
  const bool banner = std::any_of(messages.begin(), messages.end(), [](const std::string& message) {
    return message.starts_with("[notice] tiffany ") && message.find(": 1 worker, I/O backend ") != std::string::npos;
  });
  EXPECT_TRUE(banner) << "no start-up line in:\n" << log;
  EXPECT_EQ(server.err(), "");
  EXPECT_EQ(server.out(), "");
}

TEST(ErrorLogFile, AFileThatCannotBeOpenedIsAConfigErrorNamingErrorLogPath) {
  TempDir dir;
  const std::string config = dir.write("tiffany.json", R"({"error_log": {"path": "missing/error.log"},
      "listeners": [{"name": "web", "address": "127.0.0.1:0", "protocol": "echo"}]})");
  const RunResult run = run_tiffany({"--config", config});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.err, "tiffany: config error: " + config + ": $.error_log.path: cannot open \"" + dir.path() +
                         "/missing/error.log\" for appending: No such file or directory\n");
  EXPECT_EQ(run.out, "");
}

TEST(ErrorLogFile, ARefusalAfterTheLogIsOpenIsAlsoWrittenToIt) {
  TempDir dir;
  const LoopbackSocket taken(true);  // the port is in use
  ASSERT_TRUE(taken.fd.valid());
  const std::string config = dir.write("tiffany.json", R"({"error_log": {"path": "error.log", "level": "error"},
      "listeners": [{"name": "web", "address": "127.0.0.1:)" + std::to_string(taken.port()) +
                                                           R"(", "protocol": "echo"}]})");
  const RunResult run = run_tiffany({"--config", config});
  EXPECT_EQ(run.exit_code, 1);
  const std::string expected =
      "config error: " + config +
      ": $.listeners[0].address: listener \"web\" cannot listen on 127.0.0.1:" + std::to_string(taken.port());
  EXPECT_EQ(run.err.rfind("tiffany: " + expected, 0), 0u) << run.err;
  const std::string log = read_file(dir.path() + "/error.log");
  EXPECT_NE(log.find("[crit] " + expected), std::string::npos) << log;
}

}  // namespace
}  // namespace tiffany::testing
