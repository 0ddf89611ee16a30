// The proxy's splice of sized bodies through the real binary: bodies intact around the 64 KiB threshold and large,
// the counter proves splicing happened (against `"splice": false`), both connections kept alive, HEAD and 304,
// and one pipe per worker reused.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "../echo_client.hpp"
#include "../server_process.hpp"
#include "fake_upstream.hpp"
#include "proxy_client.hpp"
#include "splice_support.hpp"

namespace tiffany::testing {
namespace {

constexpr std::size_t kMiB = 1 << 20;
// The most of a body the proxy may read with the head (its largest read
// buffer), which goes through its buffer rather than the pipe.
constexpr double kReadWithHead = 256 * 1024;

// Answers GET /SIZE with SIZE patterned bytes, HEAD /SIZE with the head alone, /304 with a 304; keeps the connection.
bool sized_answers(int fd, const std::string& request) {
  const bool head = request.rfind("HEAD ", 0) == 0;
  const std::size_t path = request.find(' ') + 1;
  const std::string target = request.substr(path, request.find(' ', path) - path);
  if (target == "/304") return send_all(fd, "HTTP/1.1 304 Not Modified\r\nETag: \"v1\"\r\n\r\n");
  const auto size = static_cast<std::size_t>(std::strtoull(target.c_str() + 1, nullptr, 10));
  const std::string head_text = "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: " +
                                std::to_string(size) + "\r\n\r\n";
  return send_all(fd, head ? head_text : head_text + pattern_body(size));
}

// One worker, /metrics, and /app/* proxied to upstream "app" (`route_extra` in its `with`).
std::string config(int upstream_port, const std::string& route_extra = "") {
  return R"({"workers": 1, "upstreams": {"app": {"servers": ["127.0.0.1:)" + std::to_string(upstream_port) +
         R"("]}}, "listeners": [{"name": "px", "address": "127.0.0.1:0", "protocol": "http", "routes": [
           {"path": "/metrics", "handler": "metrics"},
           {"path": "/app/*", "handler": "proxy", "with": {"upstream": "app", "strip_prefix": "/app")" +
         route_extra + "}}]}]}";
}

std::string get(const std::string& target, const std::string& method = "GET") {
  return method + " " + target + " HTTP/1.1\r\nHost: example.test\r\n\r\n";
}

// GETs each size on one kept-alive connection and checks every body byte.
void fetch_sizes_on_one_connection(int port, const std::vector<std::size_t>& sizes) {
  const UniqueFd client = connect_loopback(port);
  ASSERT_TRUE(client.valid());
  for (const std::size_t size : sizes) {
    ASSERT_TRUE(send_all(client.get(), get("/app/" + std::to_string(size))));
    const ReadResponse response = read_response(client.get());
    ASSERT_FALSE(response.closed) << "size " << size << ": the connection closed; head: " << response.head;
    EXPECT_EQ(status_of(response.head), 200) << response.head;
    EXPECT_EQ(content_length_of(response.head), static_cast<long long>(size)) << response.head;
    EXPECT_TRUE(response.body == pattern_body(size)) << "size " << size << ": the body differs";
  }
}

const std::vector<std::size_t> kSizes = {64 * 1024, 64 * 1024 + 1, 300'000, kMiB, 16 * kMiB};

TEST(ProxySplice, BodiesAroundTheThresholdAndLargeOnesArriveIntactAndTheLargeOnesAreSpliced) {
  FakeUpstream upstream(sized_answers);
  ServerProcess proxy(config(upstream.port()));
  const int port = proxy.port_of("px");
  fetch_sizes_on_one_connection(port, kSizes);
  // Everything past what came with each head went by splice: a silent fall
  // back to copying fails here (the control below copies the same bodies).
  const double spliced = spliced_bytes(port);
  EXPECT_GE(spliced, static_cast<double>(kMiB + 16 * kMiB) - 2 * kReadWithHead);
  EXPECT_LE(spliced, static_cast<double>(64 * 1024 + 1 + 300'000 + kMiB + 16 * kMiB));
  EXPECT_EQ(upstream.accepted(), 1) << "the upstream connection was not reused after spliced bodies";
}

TEST(ProxySplice, WithSpliceOffTheSameBodiesAreCopied) {
  FakeUpstream upstream(sized_answers);
  ServerProcess proxy(config(upstream.port(), R"(, "splice": false)"));
  const int port = proxy.port_of("px");
  fetch_sizes_on_one_connection(port, kSizes);
  EXPECT_EQ(spliced_bytes(port), 0);
  EXPECT_EQ(upstream.accepted(), 1);
}

TEST(ProxySplice, HeadAnd304AnswersCarryNoBodyAndBothConnectionsStayOpen) {
  FakeUpstream upstream(sized_answers);
  ServerProcess proxy(config(upstream.port()));
  const int port = proxy.port_of("px");
  const UniqueFd client = connect_loopback(port);
  ASSERT_TRUE(client.valid());
  const std::string size = std::to_string(kMiB);

  ASSERT_TRUE(send_all(client.get(), get("/app/" + size)));
  ReadResponse response = read_response(client.get());
  ASSERT_FALSE(response.closed) << response.head;
  EXPECT_TRUE(response.body == pattern_body(kMiB));

  ASSERT_TRUE(send_all(client.get(), get("/app/" + size, "HEAD")));
  response = read_response(client.get(), true);
  ASSERT_FALSE(response.closed) << response.head;
  EXPECT_EQ(status_of(response.head), 200) << response.head;
  EXPECT_EQ(content_length_of(response.head), static_cast<long long>(kMiB)) << response.head;
  EXPECT_EQ(response.body, "") << "bytes after a HEAD answer";

  ASSERT_TRUE(send_all(client.get(), get("/app/304")));
  response = read_response(client.get());
  ASSERT_FALSE(response.closed) << response.head;
  EXPECT_EQ(status_of(response.head), 304) << response.head;
  EXPECT_EQ(response.body, "") << "bytes after a 304";

  // The next answer starts where the last one ended: nothing was left over.
  ASSERT_TRUE(send_all(client.get(), get("/app/" + size)));
  response = read_response(client.get());
  ASSERT_FALSE(response.closed) << response.head;
  EXPECT_EQ(status_of(response.head), 200) << response.head;
  EXPECT_TRUE(response.body == pattern_body(kMiB));

  EXPECT_GE(spliced_bytes(port), 2 * (static_cast<double>(kMiB) - kReadWithHead));
  EXPECT_EQ(upstream.accepted(), 1) << "an upstream connection was closed after a spliced body, HEAD or 304";
}

TEST(ProxySplice, SequentialBodiesReuseOnePipe) {
  FakeUpstream upstream(sized_answers);
  ServerProcess proxy(config(upstream.port()));
  const int port = proxy.port_of("px");
  const int before = open_pipes(proxy.pid());
  ASSERT_GE(before, 0);
  fetch_sizes_on_one_connection(port, {kMiB});
  const int after_one = open_pipes(proxy.pid());
  EXPECT_LE(after_one - before, 2) << "more than one pipe (two ends) for one body";
  fetch_sizes_on_one_connection(port, std::vector<std::size_t>(8, kMiB));
  EXPECT_EQ(open_pipes(proxy.pid()), after_one) << "pipes were made (or leaked) per body instead of reused";
  EXPECT_GE(spliced_bytes(port), 9 * (static_cast<double>(kMiB) - kReadWithHead));
}

}  // namespace
}  // namespace tiffany::testing
