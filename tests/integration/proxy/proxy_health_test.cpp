// Upstream health seen from outside: a group of one is not taken out by a failure, a group all down is tried
// anyway, changes are logged and counted, and a malformed request is the client's 400 whatever that state.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "../server_process.hpp"
#include "fake_upstream.hpp"
#include "proxy_client.hpp"
#include "support/loopback_socket.hpp"

namespace tiffany::testing {
namespace {

using namespace std::chrono_literals;

// One worker, upstream "app" (the defaults but `upstream_extra`) and the route /app/* (`route_extra`).
std::string config(const std::vector<int>& ports, const std::string& upstream_extra, const std::string& route_extra) {
  std::string servers;
  for (const int port : ports) servers += (servers.empty() ? "\"127.0.0.1:" : ", \"127.0.0.1:") + std::to_string(port) + "\"";
  return R"({"workers": 1, "upstreams": {"app": {"servers": [)" + servers + "]" + upstream_extra + R"(}},
    "listeners": [{"name": "px", "address": "127.0.0.1:0", "protocol": "http", "routes": [
      {"path": "/metrics", "handler": "metrics"},
      {"path": "/app/*", "handler": "proxy", "with": {"upstream": "app", "strip_prefix": "/app")" +
         route_extra + "}}]}]}";
}

std::string labels(int port) { return "{upstream=\"app\",server=\"127.0.0.1:" + std::to_string(port) + "\""; }

// A sample's value in the proxy's /metrics ("" when absent).
std::string metric(int port, const std::string& name_and_labels) {
  const std::string text = body_of(http_exchange(port, get_request("/metrics")));
  const std::size_t at = text.find(name_and_labels + " ");
  if (at == std::string::npos) return "";
  const std::size_t from = at + name_and_labels.size() + 1;
  return text.substr(from, text.find('\n', from) - from);
}

const std::string kBadChunk =
    "POST /app/x HTTP/1.1\r\nHost: h\r\nConnection: close\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n";

TEST(ProxyHealth, OneTimeoutDoesNotTakeTheOnlyServerOut) {
  // The first request stalls until the proxy gives up on it (504); the next ones are answered.
  std::atomic<int> seen{0};
  FakeUpstream* self = nullptr;
  FakeUpstream once_slow([&](int fd, const std::string&) {
    if (++seen == 1) {
      self->wait_for_close_or_timeout(fd, 10'000);
      return false;
    }
    return send_all(fd, FakeUpstream::response(200, "ok"));
  });
  self = &once_slow;
  // The defaults: max_fails 1, fail_timeout_ms 10000.
  ServerProcess proxy(config({once_slow.port()}, "", R"(, "first_byte_timeout_ms": 300)"));
  const int port = proxy.port_of("px");
  EXPECT_EQ(status_of(http_exchange(port, get_request("/app/slow"))), 504);
  for (int i = 0; i < 3; ++i) {
    const std::string got = http_exchange(port, get_request("/app/x"));
    EXPECT_EQ(status_of(got), 200) << "request " << i << " after the 504: " << got;
  }
  EXPECT_EQ(metric(port, "tiffany_upstream_up" + labels(once_slow.port()) + "}"), "1");
  EXPECT_EQ(metric(port, "tiffany_upstream_health_changes_total" + labels(once_slow.port()) + ",to=\"down\"}"), "0");
}

TEST(ProxyHealth, AGroupAllDownIsTriedAnywayAndItsChangesAreLoggedAndCounted) {
  std::atomic<bool> failing{true};
  const auto answer = [&](int fd, const std::string&) {
    if (failing) return false;  // closes without an answer
    return send_all(fd, FakeUpstream::response(200, "ok"));
  };
  FakeUpstream a(answer);
  FakeUpstream b(answer);
  ServerProcess proxy(config({a.port(), b.port()}, R"(, "max_fails": 1, "fail_timeout_ms": 60000)", ""));
  const int port = proxy.port_of("px");
  // The GET fails on one server and its retry on the other: both are down for a minute.
  EXPECT_EQ(status_of(http_exchange(port, get_request("/app/x"))), 502);
  for (const int server : {a.port(), b.port()}) {
    EXPECT_EQ(metric(port, "tiffany_upstream_up" + labels(server) + "}"), "0");
    EXPECT_EQ(metric(port, "tiffany_upstream_health_changes_total" + labels(server) + ",to=\"down\"}"), "1");
  }
  failing = false;
  const std::string got = http_exchange(port, get_request("/app/x"));
  EXPECT_EQ(status_of(got), 200) << "every server down: one is tried rather than none: " << got;
  const int back = metric(port, "tiffany_upstream_up" + labels(a.port()) + "}") == "1" ? a.port() : b.port();
  EXPECT_EQ(metric(port, "tiffany_upstream_up" + labels(back) + "}"), "1");
  EXPECT_EQ(metric(port, "tiffany_upstream_health_changes_total" + labels(back) + ",to=\"up\"}"), "1");
  const std::string log = proxy.err();
  for (const int server : {a.port(), b.port()}) {
    EXPECT_NE(log.find("upstream \"app\": server 127.0.0.1:" + std::to_string(server) + " marked down for 60000 ms"),
              std::string::npos)
        << log;
  }
  EXPECT_NE(log.find("upstream \"app\": server 127.0.0.1:" + std::to_string(back) + " back up"), std::string::npos)
      << log;
}

TEST(ProxyHealth, ABadChunkSizeIs400WithTheOnlyServerUnreachable) {
  const LoopbackSocket closed(false);  // bound, not listening: connections are refused
  ServerProcess proxy(config({closed.port()}, "", ""));
  const int port = proxy.port_of("px");
  const std::string got = http_exchange(port, kBadChunk);
  EXPECT_EQ(status_of(got), 400) << got;
  EXPECT_EQ(metric(port, "tiffany_upstream_requests_total" + labels(closed.port()) + "}"), "0")
      << "judged before a server was chosen";
}

TEST(ProxyHealth, ABadChunkSizeIs400WithEveryServerMarkedDown) {
  const LoopbackSocket one(false);
  const LoopbackSocket two(false);
  ServerProcess proxy(config({one.port(), two.port()}, R"(, "fail_timeout_ms": 60000)", ""));
  const int port = proxy.port_of("px");
  EXPECT_EQ(status_of(http_exchange(port, get_request("/app/x"))), 502);  // both refused: both down
  ASSERT_EQ(metric(port, "tiffany_upstream_up" + labels(one.port()) + "}"), "0");
  ASSERT_EQ(metric(port, "tiffany_upstream_up" + labels(two.port()) + "}"), "0");
  const std::string got = http_exchange(port, kBadChunk);
  EXPECT_EQ(status_of(got), 400) << got;
}

}  // namespace
}  // namespace tiffany::testing
