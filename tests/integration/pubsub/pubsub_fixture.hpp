// What pub/sub's integration tests share: the config with a pubsub route, the Python drivers, ports, and a redis-server on loopback.
#pragma once

#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "integration/server_process.hpp"
#include "support/child_process.hpp"

namespace tiffany::testing {

inline const std::string kDriver = std::string(TIFFANY_SOURCE_DIR) + "/tests/integration/pubsub/pubsub_client.py";
inline const std::string kChatDriver = std::string(TIFFANY_SOURCE_DIR) + "/tests/integration/pubsub/chat_client.py";
inline const std::string kLinkDriver =
    std::string(TIFFANY_SOURCE_DIR) + "/tests/integration/pubsub/redis_link_client.py";
inline const std::string kPython = "/usr/bin/python3";  // Debian's python3-websockets belongs to it
inline const std::string kChatPlugin = under_test(TIFFANY_CHAT_PLUGIN);

// Binds `fd` to 127.0.0.1 on a port the kernel picks; returns the port.
inline int bind_loopback(int fd) {
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t size = sizeof address;
  EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  EXPECT_EQ(::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size), 0);
  return ntohs(address.sin_port);
}

// A port nothing listens on now.
inline int unused_port() {
  const int probe = ::socket(AF_INET, SOCK_STREAM, 0);
  const int port = bind_loopback(probe);
  ::close(probe);
  return port;
}

// The pubsub route with `with`, and the chat example plugin's route with `chat_with`.
inline std::string config(int workers, const std::string& with, const std::string& chat_with = "{}") {
  return R"({"workers": )" + std::to_string(workers) + R"(, "drain_timeout_ms": 3000, "plugins": [")" + kChatPlugin +
         R"("], "listeners": [
      {"name": "ws", "address": "127.0.0.1:0", "protocol": "http",
       "routes": [{"method": "GET", "path": "/metrics", "handler": "metrics"},
                  {"method": "GET", "path": "/pubsub", "handler": "pubsub", "with": )" + with + R"(},
                  {"method": "GET", "path": "/chat", "handler": "chat.room", "with": )" + chat_with + "}]}]}";
}

// Runs one scenario of `driver`; fails the test unless it printed {"ok": true...}; returns its JSON.
inline std::string drive(const std::vector<std::string>& scenario, const std::string& driver = kDriver) {
  std::vector<std::string> args{driver};
  args.insert(args.end(), scenario.begin(), scenario.end());
  const RunResult run = run_program(kPython, args, std::chrono::seconds(90));
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_EQ(run.out.rfind("{\"ok\": true", 0), 0u) << run.out << run.err;
  return run.out;
}

inline bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// How many times `part` occurs in `text`.
inline int count_of(const std::string& text, const std::string& part) {
  int count = 0;
  for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + part.size())) ++count;
  return count;
}

// Polls `done` every 100 ms for up to `limit`; true once it holds.
template <class Done>
bool eventually(Done done, std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return true;
}

/// A redis-server of the test's own on 127.0.0.1 (its files in `dir`), with
/// `extra` arguments; ready once `redis-cli <cli...> ping` answers PONG from
/// this process (the port tried again if another Redis took it first).
/// Resumed (if stopped) and killed on destruction.
class RedisServer {
 public:
  RedisServer(const std::string& dir, std::vector<std::string> extra = {}, std::vector<std::string> cli_args = {},
              int port = 0)
      : cli_(std::move(cli_args)) {
    // Why more than one try, and why ask the Redis that answers for its pid: unused_port() finds a
    // port that was free a moment ago, and another test's Redis may bind it first. This one then
    // exits while `ping` is answered by the other, and a test that stops "its" Redis stops
    // nothing (PubSubRedisLink.ARedisStoppedWithSigstop... failed so once, as the first of a run
    // that started several Redis tests at once).
    for (int attempt = 0; attempt < 5; ++attempt) {
      port_ = port != 0 ? port : unused_port();
      if (start(dir, extra)) return;
      stop();
      if (port != 0) break;  // a port the test chose: no other to try
    }
    ADD_FAILURE() << "redis-server did not start on a port of its own (" << dir << "/redis.err)";
  }
  RedisServer(const RedisServer&) = delete;
  RedisServer& operator=(const RedisServer&) = delete;
  ~RedisServer() { stop(); }
  int port() const { return port_; }
  pid_t pid() const { return pid_; }
  /// `redis-cli -p PORT <cli...> <words...>`.
  RunResult cli(const std::vector<std::string>& words) const {
    std::vector<std::string> args{"-p", std::to_string(port_)};
    args.insert(args.end(), cli_.begin(), cli_.end());
    args.insert(args.end(), words.begin(), words.end());
    return run_program("redis-cli", args, std::chrono::seconds(10));
  }

 private:
  // Starts redis-server on port_; true once it answers and the Redis answering is this process.
  bool start(const std::string& dir, std::vector<std::string> extra) {
    std::vector<std::string> args{"--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir};
    const bool tls = std::find(extra.begin(), extra.end(), "--tls-port") != extra.end();
    args.insert(args.end(), {"--port", tls ? "0" : std::to_string(port_)});
    if (tls) {
      for (std::string& word : extra) {
        if (word == "PORT") word = std::to_string(port_);
      }
    }
    args.insert(args.end(), extra.begin(), extra.end());
    pid_ = spawn_child("redis-server", args, ChildStreams{"", dir + "/redis.out", dir + "/redis.err"});
    if (pid_ <= 0) return false;
    bool exited = false;  // it could not bind the port, say
    const bool answered = eventually(
        [&] {
          exited = exited || ::waitpid(pid_, nullptr, WNOHANG) == pid_;
          return exited || cli({"ping"}).out == "PONG\n";
        },
        std::chrono::seconds(10));
    if (exited) {
      pid_ = -1;
      return false;
    }
    return answered &&
           cli({"info", "server"}).out.find("process_id:" + std::to_string(pid_) + "\r\n") != std::string::npos;
  }
  void stop() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGCONT);
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }

  int port_ = 0;
  std::vector<std::string> cli_;
  pid_t pid_ = -1;
};

}  // namespace tiffany::testing
