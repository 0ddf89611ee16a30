// The metrics handler: valid Prometheus text whose counters move with traffic.
#include <sys/socket.h>

#include <gtest/gtest.h>

#include <cstdlib>
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

}  // namespace
}  // namespace tiffany::testing
