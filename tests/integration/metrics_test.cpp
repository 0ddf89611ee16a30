// The metrics handler: valid Prometheus text whose counters move with traffic.
#include <sys/socket.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <picojson.h>
#include <string>
#include <thread>

#include "echo_client.hpp"
#include "prometheus_text.hpp"
#include "server_process.hpp"

namespace tiffany::testing {
namespace {

TEST(Metrics, ArePrometheusTextAndMoveWithRequests) {
  ServerProcess server(R"({"listeners": [{"name": "web", "address": "127.0.0.1:0", "protocol": "http", "routes": [
      {"method": "GET", "path": "/plaintext", "handler": "text", "body": "Hello, World!"},
      {"method": "GET", "path": "/metrics", "handler": "metrics"}]}]})");
  const int port = server.port_of("web");
  ASSERT_GT(port, 0);
  const auto before = parse_prometheus(get(port, "/metrics"));
  const std::string ok = R"(tiffany_requests_total{listener="web",route="/plaintext",code="2xx"})";
  const std::string missing = R"(tiffany_requests_total{listener="web",route="-",code="4xx"})";
  ASSERT_TRUE(before.count(ok)) << "no per-route counter";
  for (int i = 0; i < 5; ++i) EXPECT_EQ(get(port, "/plaintext"), "Hello, World!");
  for (int i = 0; i < 2; ++i) get(port, "/missing");
  std::this_thread::sleep_for(std::chrono::milliseconds(250));  // workers publish task counters every 100 ms
  const auto after = parse_prometheus(get(port, "/metrics"));

  EXPECT_EQ(after.at(ok) - before.at(ok), 5);
  EXPECT_EQ(after.at(missing) - before.at(missing), 2);
  EXPECT_GE(after.at("tiffany_request_duration_seconds_count") - before.at("tiffany_request_duration_seconds_count"), 8);
  EXPECT_EQ(after.at(R"(tiffany_request_duration_seconds_bucket{le="+Inf"})"),
            after.at("tiffany_request_duration_seconds_count"));
  EXPECT_LE(after.at(R"(tiffany_request_duration_seconds_bucket{le="0.0001"})"),
            after.at(R"(tiffany_request_duration_seconds_bucket{le="1"})"));  // cumulative
  EXPECT_GE(after.at("tiffany_connections_total") - before.at("tiffany_connections_total"), 8);
  EXPECT_GT(after.at("tiffany_bytes_sent_total"), before.at("tiffany_bytes_sent_total"));
  EXPECT_GT(after.at("tiffany_bytes_received_total"), before.at("tiffany_bytes_received_total"));
  EXPECT_GT(after.at(R"(tiffany_tasks_total{state="spawned"})"), before.at(R"(tiffany_tasks_total{state="spawned"})"));
  const char* backend = std::getenv("TIFFANY_TEST_BACKEND");
  EXPECT_EQ(after.count(std::string(R"(tiffany_io_backend{backend=")") + (backend ? backend : "io_uring") + "\"}"), 1u);
}

// Why from outside: /status's keys and /metrics' names must be the same set,
// each pair with the same value when nothing moves between the two reads.
TEST(Metrics, StatusAndMetricsReportTheSameCountersAndUptimeFromStartUp) {
  ServerProcess server(R"({"listeners": [{"name": "web", "address": "127.0.0.1:0", "protocol": "http", "routes": [
      {"method": "GET", "path": "/status", "handler": "status"},
      {"method": "GET", "path": "/metrics", "handler": "metrics"}]}]})");
  const int port = server.port_of("web");
  ASSERT_GT(port, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // no request before: uptime counts from start-up
  picojson::value status;
  ASSERT_EQ(picojson::parse(status, get(port, "/status")), "");
  auto& document = status.get<picojson::object>();
  EXPECT_GE(document["uptime_seconds"].get<double>(), 1.4);
  const auto metrics = parse_prometheus(get(port, "/metrics"));
  EXPECT_GE(metrics.at("tiffany_uptime_seconds"), 1.4);
  const std::pair<const char*, const char*> same[] = {
      {"connections_total", "tiffany_connections_total"},
      {"tls_handshakes_total", "tiffany_tls_handshakes_total"},
      {"tls_handshake_failures", "tiffany_tls_handshake_failures_total"},
      {"timeouts_handshake", R"(tiffany_timeouts_total{stage="handshake"})"},
      {"connections_idle", "tiffany_connections_idle"},
      {"timeouts_idle", R"(tiffany_timeouts_total{stage="idle"})"},
      {"requests_total", "tiffany_requests_parsed_total"},
      {"accept_backoffs", "tiffany_accept_backoffs_total"},
      {"connections_refused", "tiffany_connections_refused_total"}};
  for (const auto& [key, name] : same) {
    ASSERT_TRUE(document[key].is<double>()) << key;
    ASSERT_TRUE(metrics.count(name)) << name;
  }
  EXPECT_EQ(metrics.at("tiffany_connections_total") - document["connections_total"].get<double>(), 1);  // its own
  EXPECT_EQ(metrics.at("tiffany_requests_parsed_total") - document["requests_total"].get<double>(), 1);
  EXPECT_EQ(document["tls_handshakes_total"].get<double>(), metrics.at("tiffany_tls_handshakes_total"));
}

}  // namespace
}  // namespace tiffany::testing
