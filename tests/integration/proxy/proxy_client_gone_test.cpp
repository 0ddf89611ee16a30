// A client that leaves while the proxy waits for the upstream's response head: the upstream request is canceled
// (its connection closed) long before first_byte_timeout_ms, and the access log says 499; HTTP/1.1 and HTTP/2.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <fstream>
#include <string>
#include <thread>

#include "../echo_client.hpp"
#include "../server_process.hpp"
#include "fake_upstream.hpp"
#include "proxy_client.hpp"

namespace tiffany::testing {
namespace {

using namespace std::chrono_literals;

const std::string kDriver = std::string(TIFFANY_SOURCE_DIR) + "/tests/integration/http2/h2_frames_client.py";

// Why 30 s: the control. Each test waits at most 5 s for the upstream to see
// its connection closed, so only a cancellation, never the timeout, passes.
constexpr const char* kLongFirstByte = R"(, "first_byte_timeout_ms": 30000)";
constexpr auto kCloseSeen = 5000ms;

// An upstream that takes requests and never answers: each waits (up to 10 s) for the proxy to close its connection.
class SilentUpstream {
 public:
  SilentUpstream()
      : fake_([this](int fd, const std::string&) {
          ++arrived_;
          fake_.wait_for_close_or_timeout(fd, 10'000);
          return false;
        }) {}
  int port() const { return fake_.port(); }
  /// Waits (up to 10 s) until `count` requests have arrived.
  bool wait_for_requests(int count) const {
    for (int i = 0; i < 1000 && arrived_.load() < count; ++i) std::this_thread::sleep_for(10ms);
    return arrived_.load() >= count;
  }
  /// Waits up to `bound` until `count` of its connections were closed by the proxy while waiting.
  bool wait_for_closes(int count, std::chrono::milliseconds bound) const {
    const auto until = std::chrono::steady_clock::now() + bound;
    while (fake_.closed_while_waiting() < count && std::chrono::steady_clock::now() < until) {
      std::this_thread::sleep_for(10ms);
    }
    return fake_.closed_while_waiting() >= count;
  }
  int closes() const { return fake_.closed_while_waiting(); }

 private:
  std::atomic<int> arrived_{0};
  FakeUpstream fake_;
};

// One worker, an access log in JSON, upstream "app" and the route /app/* (`route_extra` in its `with`).
std::string config(const TempDir& dir, int upstream_port, const std::string& route_extra, bool http2 = false) {
  return R"({"workers": 1, "access_log": {"path": ")" + dir.path() + R"(/access.log", "format": "json"},
    "upstreams": {"app": {"servers": ["127.0.0.1:)" +
         std::to_string(upstream_port) + R"("]}},
    "listeners": [{"name": "px", "address": "127.0.0.1:0", "protocol": "http")" +
         (http2 ? R"(, "http2": {"enabled": true})" : "") + R"(,
      "routes": [{"path": "/app/*", "handler": "proxy", "with": {"upstream": "app", "strip_prefix": "/app")" +
         route_extra + "}}]}]}";
}

// The access log once the server has stopped (it is written through a buffer).
std::string access_log_after_stop(ServerProcess& proxy, const TempDir& dir) {
  proxy.send_signal(SIGTERM);
  EXPECT_EQ(proxy.wait_for_exit(10s), 0) << proxy.err();
  return read_file(dir.path() + "/access.log");
}

// Sends `request`, waits until the upstream has it, then leaves: FIN, or RST with `reset`.
void send_and_leave(int port, const std::string& request, const SilentUpstream& upstream, bool reset) {
  UniqueFd client = connect_loopback(port);
  ASSERT_TRUE(client.valid());
  ASSERT_TRUE(send_all(client.get(), request));
  ASSERT_TRUE(upstream.wait_for_requests(1)) << "the request never reached the upstream";
  if (reset) {
    const linger abort{1, 0};  // close() sends RST
    ASSERT_EQ(::setsockopt(client.get(), SOL_SOCKET, SO_LINGER, &abort, sizeof abort), 0);
  }
  client.reset();
}

TEST(ProxyClientGone, AClientThatClosesCancelsTheUpstreamRequestAndIsLogged499) {
  TempDir dir;
  SilentUpstream upstream;
  ServerProcess proxy(config(dir, upstream.port(), kLongFirstByte));
  const int port = proxy.port_of("px");
  send_and_leave(port, "GET /app/wait HTTP/1.1\r\nHost: h\r\n\r\n", upstream, false);
  EXPECT_TRUE(upstream.wait_for_closes(1, kCloseSeen))
      << "the upstream connection stayed open after the client's FIN (first_byte_timeout_ms is 30 s)";
  const std::string log = access_log_after_stop(proxy, dir);
  EXPECT_NE(log.find(R"("path":"/app/wait","query":"","status":499,)"), std::string::npos) << log;
}

TEST(ProxyClientGone, AClientThatResetsAfterItsBodyCancelsTheUpstreamRequest) {
  TempDir dir;
  SilentUpstream upstream;
  ServerProcess proxy(config(dir, upstream.port(), kLongFirstByte));
  const int port = proxy.port_of("px");
  // A streamed body read to its end first: the watch begins only then.
  send_and_leave(port, "POST /app/upload HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello", upstream, true);
  EXPECT_TRUE(upstream.wait_for_closes(1, kCloseSeen))
      << "the upstream connection stayed open after the client's RST (first_byte_timeout_ms is 30 s)";
  const std::string log = access_log_after_stop(proxy, dir);
  EXPECT_NE(log.find(R"("path":"/app/upload","query":"","status":499,)"), std::string::npos) << log;
}

TEST(ProxyClientGone, PipelinedRequestsAreNotTakenForAClientThatLeft) {
  TempDir dir;
  std::atomic<bool> go{false};
  std::atomic<int> first_arrived{0};
  FakeUpstream* self = nullptr;
  FakeUpstream fake([&](int fd, const std::string& request) {
    if (request.find("GET /one ") == std::string::npos) return send_all(fd, FakeUpstream::response(200, "two"));
    ++first_arrived;
    while (!go) {
      if (self->wait_for_close_or_timeout(fd, 20)) return false;
    }
    return send_all(fd, FakeUpstream::response(200, "one"));
  });
  self = &fake;
  ServerProcess proxy(config(dir, fake.port(), kLongFirstByte));
  UniqueFd client = connect_loopback(proxy.port_of("px"));
  ASSERT_TRUE(send_all(client.get(), "GET /app/one HTTP/1.1\r\nHost: h\r\n\r\n"
                                     "GET /app/two HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n"));
  for (int i = 0; i < 1000 && first_arrived == 0; ++i) std::this_thread::sleep_for(10ms);
  ASSERT_EQ(first_arrived, 1);
  // Why a pause: time for a watch that took the waiting bytes for a hang-up to (wrongly) fire.
  std::this_thread::sleep_for(300ms);
  go = true;
  const std::string got = http_exchange_rest(client.get(), 10s);
  EXPECT_EQ(fake.closed_while_waiting(), 0) << "the pipelined request made the proxy cancel the first";
  const std::size_t second = got.find("HTTP/1.1 200", 1);
  EXPECT_EQ(status_of(got), 200) << got;
  ASSERT_NE(second, std::string::npos) << got;
  EXPECT_EQ(body_of(got.substr(0, second)), "one");
  EXPECT_EQ(body_of(got.substr(second)), "two");
}

TEST(ProxyClientGone, IgnoreClientAbortLetsTheUpstreamAnswer) {
  TempDir dir;
  FakeUpstream* self = nullptr;
  std::atomic<int> arrived{0};
  FakeUpstream patient([&](int fd, const std::string&) {
    ++arrived;
    // Closed within 800 ms would be the proxy giving up; else it answers, which the access log shows.
    if (self->wait_for_close_or_timeout(fd, 800)) return false;
    return send_all(fd, FakeUpstream::response(200, "late"));
  });
  self = &patient;
  ServerProcess proxy(config(dir, patient.port(), std::string(kLongFirstByte) + R"(, "ignore_client_abort": true)"));
  {
    UniqueFd client = connect_loopback(proxy.port_of("px"));
    ASSERT_TRUE(send_all(client.get(), "GET /app/kept HTTP/1.1\r\nHost: h\r\n\r\n"));
    for (int i = 0; i < 1000 && arrived == 0; ++i) std::this_thread::sleep_for(10ms);
    ASSERT_EQ(arrived, 1);
  }
  // Why no wait here: the stop drains, letting the request in flight end (the answer comes at 800 ms).
  const std::string log = access_log_after_stop(proxy, dir);
  // The answer went to a client that had left: logged as answered, the upstream untouched.
  EXPECT_EQ(patient.closed_while_waiting(), 0);
  EXPECT_NE(log.find(R"("path":"/app/kept","query":"","status":200,)"), std::string::npos) << log;
}

TEST(ProxyClientGone, AnHttp2StreamResetCancelsTheUpstreamRequestButNotTheConnection) {
  TempDir dir;
  SilentUpstream upstream;
  ServerProcess proxy(config(dir, upstream.port(), kLongFirstByte, true));
  const int port = proxy.port_of("px");
  const std::string signal = dir.path() + "/reset-now";
  RunResult run;
  std::thread driver([&] {
    run = run_program("/usr/bin/python3", {kDriver, "--port", std::to_string(port), "--path", "/app/h2", "--wait",
                                           "15", "--no-after", "--signal", signal, "reset_on_signal"},
                      60s);
  });
  const bool arrived = upstream.wait_for_requests(1);
  std::ofstream(signal) << "now";
  const bool closed = arrived && upstream.wait_for_closes(1, kCloseSeen);
  std::ofstream(signal + ".done") << "done";
  driver.join();
  EXPECT_TRUE(arrived) << run.out << run.err;
  EXPECT_TRUE(closed) << "the upstream connection stayed open after RST_STREAM (first_byte_timeout_ms is 30 s): "
                      << run.out;
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find(R"("signaled": true)"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find(R"("answered_before_reset": false)"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find(R"("open_at_end": true)"), std::string::npos) << "only the stream was canceled: " << run.out;
  const std::string log = access_log_after_stop(proxy, dir);
  EXPECT_NE(log.find(R"("path":"/app/h2","query":"","status":499,)"), std::string::npos) << log;
}

}  // namespace
}  // namespace tiffany::testing
