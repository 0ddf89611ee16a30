// The metrics handler: valid Prometheus text whose counters move with traffic.
#include <sys/socket.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <algorithm>
#include <cctype>
#include <sstream>
#include <string>
#include <thread>

#include "echo_client.hpp"
#include "server_process.hpp"

namespace tiffany::testing {
namespace {

bool is_name(std::string_view name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  return std::all_of(name.begin(), name.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == ':'; });
}

// True when `labels` is `{name="value",...}` with properly escaped values.
bool valid_labels(std::string_view labels) {
  if (labels.size() < 2 || labels.front() != '{' || labels.back() != '}') return false;
  std::size_t i = 1;
  while (i < labels.size() - 1) {
    const std::size_t equals = labels.find('=', i);
    if (equals == std::string_view::npos || !is_name(labels.substr(i, equals - i))) return false;
    if (equals + 1 >= labels.size() || labels[equals + 1] != '"') return false;
    std::size_t j = equals + 2;
    while (j < labels.size() && labels[j] != '"') j += labels[j] == '\\' ? 2 : 1;
    if (j >= labels.size()) return false;
    i = j + 1;
    if (labels[i] == ',') ++i;
  }
  return i == labels.size() - 1;
}

// A small parser of the Prometheus text format (version 0.0.4): fails the
// test on any malformed line; returns "name{labels}" → value.
std::map<std::string, double> parse_prometheus(const std::string& text) {
  std::map<std::string, double> samples;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty()) continue;
    if (line[0] == '#') {
      std::istringstream words(line);
      std::string hash, kind, name, rest;
      words >> hash >> kind >> name >> rest;
      EXPECT_TRUE((kind == "HELP" || kind == "TYPE") && is_name(name) && !rest.empty()) << "bad comment: " << line;
      if (kind == "TYPE") {
        EXPECT_TRUE(rest == "counter" || rest == "gauge" || rest == "histogram" || rest == "summary" ||
                    rest == "untyped")
            << "bad type: " << line;
      }
      continue;
    }
    const std::size_t space = line.rfind(' ');
    const std::string key = line.substr(0, space);
    const std::string value = space == std::string::npos ? "" : line.substr(space + 1);
    const std::size_t brace = key.find('{');
    const bool ok = space != std::string::npos && is_name(key.substr(0, brace)) &&
                    (brace == std::string::npos || valid_labels(std::string_view(key).substr(brace)));
    if (!ok) {
      ADD_FAILURE() << "bad sample: " << line;
      continue;
    }
    char* end = nullptr;
    const double number = value == "+Inf" ? 1e308 : std::strtod(value.c_str(), &end);
    if (value != "+Inf" && (end == value.c_str() || *end != '\0')) ADD_FAILURE() << "bad value: " << line;
    samples[key] = number;
  }
  return samples;
}

std::string get(int port, const std::string& path) {
  UniqueFd fd = connect_loopback(port);
  const std::string request = "GET " + path + " HTTP/1.1\r\nConnection: close\r\n\r\n";
  ::send(fd.get(), request.data(), request.size(), MSG_NOSIGNAL);
  std::string reply;
  char buffer[65536];
  for (ssize_t n; (n = ::recv(fd.get(), buffer, sizeof buffer, 0)) > 0;) reply.append(buffer, static_cast<std::size_t>(n));
  const auto body = reply.find("\r\n\r\n");
  return body == std::string::npos ? reply : reply.substr(body + 4);
}

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
