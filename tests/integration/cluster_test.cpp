// Three Tiffanys behind a real HAProxy (health checks on `health`, PROXY protocol v2): a rolling
// reload and then a rolling binary upgrade under wrk cost no failed request; `kill -9` of one is
// marked down within HAProxy's check interval and costs a bounded number of failed requests.
#include <signal.h>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "reload_support.hpp"
#include "server_process.hpp"
#include "support/haproxy_peer.hpp"

namespace tiffany::testing {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

constexpr int kInstances = 3;
constexpr auto kCheckInterval = 200ms;
constexpr int kFall = 2;  // failed checks before HAProxy marks a server down

std::string instance_config(int index, int port) {
  return R"({"workers": 1, "listeners": [{"name": "web", "address": "127.0.0.1:)" + std::to_string(port) + R"(",
      "protocol": "http",
      "proxy_protocol": {"trusted": ["127.0.0.1/32"]}, "routes": [
      {"method": "GET", "path": "/health", "handler": "health"},
      {"method": "GET", "path": "/hello", "handler": "text", "with": {"body": "hello from )" +
         std::to_string(index) + R"("}}]}]})";
}

// One instance: the process the test started and, after an upgrade, the one that took over.
struct Instance {
  std::unique_ptr<ServerProcess> first;
  int port = 0;
  std::unique_ptr<StopOnExit> upgraded;
  int upgrades = 0;

  pid_t pid() const { return upgraded ? upgraded->pid : first->pid(); }
  void signal(int signo) const { ::kill(pid(), signo); }
};

class Cluster : public ::testing::Test {
 protected:
  void SetUp() override {
    binary_ = dir_.path() + "/tiffany";
    std::filesystem::copy_file(tiffany_binary(), binary_);
    std::string servers = "  option httpchk\n  http-check send meth GET uri /health ver HTTP/1.1 hdr Host t\n";
    for (int i = 0; i < kInstances; ++i) {
      Instance& instance = instances_[i];
      // Why a fixed port: an upgrade's new process reads the config itself; port 0 would move it.
      instance.port = free_port();
      instance.first =
          std::make_unique<ServerProcess>(instance_config(i, instance.port), std::vector<std::string>{}, binary_);
      ASSERT_EQ(instance.first->port_of("web"), instance.port) << instance.first->err();
      servers += "  server t" + std::to_string(i) + " 127.0.0.1:" + std::to_string(instance.port) +
                 " send-proxy-v2 check inter " + std::to_string(kCheckInterval.count()) + " fall " +
                 std::to_string(kFall) + " rise 1\n";
    }
    // What an operator runs in front: retry a request whose server went away on another one.
    haproxy_ = std::make_unique<HaproxyPeer>(servers, "http",
                                             "  retries 3\n  option redispatch 1\n  retry-on all-retryable-errors\n");
    ASSERT_TRUE(haproxy_->running()) << haproxy_->config();
    ASSERT_TRUE(all_up()) << haproxy_->admin("show stat");
  }

  std::string url() const { return "http://127.0.0.1:" + std::to_string(haproxy_->port()) + "/hello"; }

  // HAProxy's status of server `index` ("UP", "DOWN", ...), from "show stat".
  std::string status_of(int index) const {
    std::istringstream lines(haproxy_->admin("show stat"));
    const std::string name = "tiffany,t" + std::to_string(index) + ",";
    for (std::string line; std::getline(lines, line);) {
      if (!line.starts_with(name)) continue;
      std::istringstream fields(line);
      std::string field;
      for (int column = 0; column <= 17 && std::getline(fields, field, ','); ++column) {
        if (column == 17) return field;  // "status"
      }
    }
    return "";
  }

  bool all_up() const {
    const auto deadline = Clock::now() + 5s;
    for (;;) {
      bool up = true;
      for (int i = 0; i < kInstances; ++i) up = up && status_of(i).starts_with("UP");
      if (up) return true;
      if (Clock::now() >= deadline) return false;
      std::this_thread::sleep_for(20ms);
    }
  }

  // SIGUSR2 to instance `i`; returns once its new process serves and the old one has exited.
  void upgrade(Instance& instance) {
    const std::string before = instance.first->err();
    instance.signal(SIGUSR2);
    ++instance.upgrades;
    ASSERT_TRUE(wait_for_log(*instance.first, "upgrade: process", instance.upgrades)) << instance.first->err();
    const std::string log = instance.first->err();
    const pid_t next = upgraded_pid(log.substr(before.size()));
    ASSERT_GT(next, 0) << log;
    const pid_t old = instance.pid();
    instance.upgraded = std::make_unique<StopOnExit>(next);
    if (old == instance.first->pid()) {
      EXPECT_EQ(instance.first->wait_for_exit(15s), 0) << log;
    }
  }

  TempDir dir_;
  std::string binary_;
  Instance instances_[kInstances];
  std::unique_ptr<HaproxyPeer> haproxy_;
};

TEST_F(Cluster, ARollingReloadThenARollingUpgradeUnderWrkFailNoRequest) {
  std::thread roll([&] {
    for (Instance& instance : instances_) {
      std::this_thread::sleep_for(700ms);
      instance.signal(SIGHUP);
    }
    install_file(tiffany_binary(), binary_);  // the new build
    for (Instance& instance : instances_) {
      std::this_thread::sleep_for(700ms);
      upgrade(instance);
    }
  });
  const WrkResult wrk = run_wrk(url(), 9s);
  roll.join();
  std::cout << "[ cluster  ] rolling reload and upgrade: " << wrk.requests << " requests, " << wrk.errors
            << " failed\n";
  EXPECT_EQ(wrk.errors, 0) << wrk.out;
  EXPECT_GT(wrk.requests, 1000) << wrk.out;
  for (const Instance& instance : instances_) {
    EXPECT_TRUE(wait_for_log(*instance.first, "reloaded: configuration 2 serves")) << instance.first->err();
    EXPECT_TRUE(running(instance.pid()));
    EXPECT_EQ(std::filesystem::read_symlink("/proc/" + std::to_string(instance.pid()) + "/exe").string(), binary_);
  }
  EXPECT_TRUE(all_up()) << haproxy_->admin("show stat");
}

TEST_F(Cluster, KillingOneWithSigkillIsMarkedDownWithinTheCheckIntervalAndCostsFewRequests) {
  Clock::time_point killed;
  Clock::time_point marked_down;
  std::thread killer([&] {
    std::this_thread::sleep_for(1500ms);
    killed = Clock::now();
    instances_[0].signal(SIGKILL);
    while (!status_of(0).starts_with("DOWN") && Clock::now() - killed < 10s) std::this_thread::sleep_for(10ms);
    marked_down = Clock::now();
  });
  const WrkResult wrk = run_wrk(url(), 4s);
  killer.join();
  const auto to_down = std::chrono::duration_cast<std::chrono::milliseconds>(marked_down - killed);
  std::cout << "[ cluster  ] kill -9 of one of three: " << wrk.requests << " requests, " << wrk.errors
            << " failed; marked down after " << to_down.count() << " ms\n";
  EXPECT_TRUE(status_of(0).starts_with("DOWN")) << haproxy_->admin("show stat");
  // Why this bound: fall × inter, plus one interval for the check under way, plus generous
  // scheduling slack (two cores under wrk).
  EXPECT_LE(to_down, kCheckInterval * (kFall + 1) + 1500ms);
  EXPECT_GE(wrk.errors, 0) << wrk.out;
  // Requests in flight on the killed instance's connections may fail (wrk's 32 connections at
  // most); HAProxy's retries take the rest elsewhere.
  EXPECT_LE(wrk.errors, 32) << wrk.out;
  EXPECT_GT(wrk.requests, 1000) << wrk.out;
}

}  // namespace
}  // namespace tiffany::testing
