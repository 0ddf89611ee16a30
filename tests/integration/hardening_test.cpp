// The server under hostile or careless clients: slowloris, very many headers, running out of
// file descriptors. The real binary on loopback.
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "echo_client.hpp"
#include "server_process.hpp"

namespace tiffany::testing {
namespace {

using namespace std::chrono_literals;

// Sends one request on a fresh connection; returns how long the answer took,
// or a large value if it did not come.
std::chrono::milliseconds timed_request(int port) {
  const auto start = std::chrono::steady_clock::now();
  UniqueFd fd = connect_loopback(port);
  if (!fd) return 1h;
  const std::string request = "GET /plaintext HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n";
  ::send(fd.get(), request.data(), request.size(), MSG_NOSIGNAL);
  std::string reply;
  char buffer[4096];
  for (;;) {
    pollfd p{fd.get(), POLLIN, 0};
    if (::poll(&p, 1, 10'000) <= 0) return 1h;  // a late answer is measured (and fails the bound), not lost
    const ssize_t n = ::recv(fd.get(), buffer, sizeof buffer, 0);
    if (n <= 0) break;
    reply.append(buffer, static_cast<std::size_t>(n));
  }
  if (reply.find("Hello, World!") == std::string::npos) return 1h;
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
}

const std::string kSite = R"({"listeners": [{"name": "web", "address": "127.0.0.1:0", "protocol": "http",
    "timeouts": {"header_ms": 2000},
    "routes": [{"method": "GET", "path": "/plaintext", "handler": "text", "body": "Hello, World!"}]}]})";

TEST(Hardening, SlowlorisConnectionsAreClosedWhileOthersAreServedFast) {
  ServerProcess server(kSite);
  const int port = server.port_of("web");
  ASSERT_GT(port, 0);
  constexpr int kSlow = 2000;
  std::vector<UniqueFd> slow;
  slow.reserve(kSlow);
  for (int i = 0; i < kSlow; ++i) {
    slow.push_back(connect_loopback(port));
    ASSERT_TRUE(slow.back()) << "connection " << i;
  }
  std::atomic<bool> done{false};
  std::chrono::milliseconds worst{0};
  int answered = 0;
  std::thread normal([&] {
    while (!done) {
      worst = std::max(worst, timed_request(port));
      ++answered;
      std::this_thread::sleep_for(20ms);
    }
  });
  // Dribble a header byte per connection per second; the header timeout is 2 s.
  const std::string header = "GET /plaintext HTTP/1.1\r\nHost: t\r\nX-Slow: yes\r\n";
  const auto start = std::chrono::steady_clock::now();
  for (std::size_t byte = 0; std::chrono::steady_clock::now() - start < 4s; ++byte) {
    for (UniqueFd& fd : slow) ::send(fd.get(), &header[byte % header.size()], 1, MSG_NOSIGNAL | MSG_DONTWAIT);
    std::this_thread::sleep_for(1s);
  }
  done = true;
  normal.join();
  EXPECT_GT(answered, 20);
  // Why against the header timeout, not a latency goal: a client that waited
  // behind the slow ones would wait for their 2 s timeout (or for the 408s
  // to 2,000 of them), whatever the machine's load; how fast a normal client
  // is served beside them is the benchmarks' business. (Under the sanitizers,
  // answering the 2,000 timed-out connections at once takes seconds: those
  // builds check only that normal clients are answered meanwhile.)
  if (!binary_is_sanitized()) {
    EXPECT_LT(worst, 2000ms) << "a normal client waited as long as the slow ones' header timeout";
  }
  // Why wait for each answer (up to 10 s in all): under TSan on a loaded
  // machine the 2,000 timeouts fire on time but take seconds to be answered;
  // what must hold is that every slow connection gets its 408.
  int closed_with_408 = 0;
  int closed_quietly = 0;
  const auto answers_due = std::chrono::steady_clock::now() + 10s;
  for (UniqueFd& fd : slow) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(answers_due - std::chrono::steady_clock::now());
    pollfd readable{fd.get(), POLLIN, 0};
    (void)::poll(&readable, 1, static_cast<int>(std::max<std::int64_t>(left.count(), 0)));
    char buffer[256];
    const ssize_t n = ::recv(fd.get(), buffer, sizeof buffer, MSG_DONTWAIT);
    if (n > 0 && std::string(buffer, static_cast<std::size_t>(n)).rfind("HTTP/1.1 408", 0) == 0) ++closed_with_408;
    if (n == 0) ++closed_quietly;
  }
  // Why every one: a header byte arriving in the instant the header timeout
  // fires used to turn the 408 into a silent close (the deadline's
  // cancellation outlived its rearm); see HttpTimeoutsTest's
  // HeaderBytesArrivingAsTheHeaderTimeoutFiresStillGetA408.
  EXPECT_EQ(closed_with_408, kSlow) << closed_quietly << " closed without a 408";
}

// Sends all of `request` on a fresh connection and reads until the server
// closes; `took` is the wall time from the first byte sent to the close.
std::string timed_exchange(int port, const std::string& request, std::chrono::milliseconds& took) {
  const auto start = std::chrono::steady_clock::now();
  UniqueFd fd = connect_loopback(port);
  if (!fd) return "";
  for (std::size_t sent = 0; sent < request.size();) {
    const ssize_t n = ::send(fd.get(), request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return "";
    sent += static_cast<std::size_t>(n);
  }
  std::string reply;
  char buffer[65536];
  for (;;) {
    pollfd p{fd.get(), POLLIN, 0};
    if (::poll(&p, 1, 30'000) <= 0) break;
    const ssize_t n = ::recv(fd.get(), buffer, sizeof buffer, 0);
    if (n <= 0) break;
    reply.append(buffer, static_cast<std::size_t>(n));
  }
  took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
  return reply;
}

// A GET of /json with `count` header fields in all: Host, Connection and
// X-H0, X-H1, ...
std::string request_with_headers(int count) {
  std::string request = "GET /json HTTP/1.1\r\nHost: h\r\nConnection: close\r\n";
  for (int i = 0; i < count - 2; ++i) request += "X-H" + std::to_string(i) + ": v\r\n";
  return request + "\r\n";
}

TEST(Hardening, AJsonRouteDescribes40000DistinctHeadersInLinearTime) {
  ServerProcess server(R"({"workers": 1, "listeners": [{"name": "web", "address": "127.0.0.1:0", "protocol": "http",
      "limits": {"max_header_bytes": 1048576, "max_header_count": 50000},
      "routes": [{"method": "GET", "path": "/json", "handler": "json"}]}]})");
  const int port = server.port_of("web");
  ASSERT_GT(port, 0);
  // 40,000 headers are about 0.5 MB in and 0.6 MB out; with work quadratic in
  // distinct names this took seconds of one worker's time.
  // Why the best of three: the bound is about the server's work, and one run
  // can also carry the first request's page faults or another build's load
  // on a small machine; quadratic work would make every run take seconds.
  const std::string request = request_with_headers(40'000);
  std::chrono::milliseconds best = 1h;
  for (int run = 0; run < 3; ++run) {
    std::chrono::milliseconds took{0};
    const std::string reply = timed_exchange(port, request, took);
    ASSERT_EQ(reply.rfind("HTTP/1.1 200 ", 0), 0u) << reply.substr(0, 200);
    EXPECT_NE(reply.find(R"("X-H0":"v")"), std::string::npos);
    EXPECT_NE(reply.find(R"("X-H39997":"v")"), std::string::npos);
    best = std::min(best, took);
  }
  // Why these bounds: they tell linear work (about 11 ms on a quiet machine,
  // the figure loadtest and the session notes track) from quadratic work
  // (6 s plain, far more under sanitizers) with room for a CI machine whose
  // two cores also run other tests; a tight time belongs in a benchmark.
  const auto kBound = binary_is_sanitized() ? 3000ms : 1000ms;
  EXPECT_LT(best, kBound) << "one request with 40,000 headers held its worker";
}

TEST(Hardening, MoreThanAHundredHeaderFieldsGet431ByDefault) {
  ServerProcess server(R"({"listeners": [{"name": "web", "address": "127.0.0.1:0", "protocol": "http",
      "routes": [{"method": "GET", "path": "/json", "handler": "json"}]}]})");
  const int port = server.port_of("web");
  ASSERT_GT(port, 0);
  std::chrono::milliseconds took{0};
  const std::string hundred = timed_exchange(port, request_with_headers(100), took);
  EXPECT_EQ(hundred.rfind("HTTP/1.1 200 ", 0), 0u) << hundred.substr(0, 200);
  EXPECT_NE(hundred.find(R"("X-H97":"v")"), std::string::npos);
  const std::string hundred_and_one = timed_exchange(port, request_with_headers(101), took);
  EXPECT_EQ(hundred_and_one.rfind("HTTP/1.1 431 ", 0), 0u) << hundred_and_one.substr(0, 200);
}

TEST(Hardening, ADeclaredBodyIsNotReservedBeforeItArrives) {
  // Why: sanitizers replace malloc, pad and quarantine every block, and map
  // shadow memory; the process's size then says little about the server's.
  if (binary_is_sanitized()) GTEST_SKIP() << "sanitizers distort VmSize and VmRSS; the plain build measures";
  constexpr long kDeclared = 4L << 20;  // every connection declares max_body_bytes
  ServerProcess server(R"({"workers": 1, "listeners": [{"name": "web", "address": "127.0.0.1:0", "protocol": "http",
      "limits": {"max_body_bytes": 4194304},
      "routes": [{"method": "POST", "path": "/echo", "handler": "echo"}]}]})");
  const int port = server.port_of("web");
  ASSERT_GT(port, 0);
  const std::string head = "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: " + std::to_string(kDeclared) +
                           "\r\n\r\nabc";
  auto open_uploads = [&](std::vector<UniqueFd>& into, int count) {
    for (int i = 0; i < count; ++i) {
      into.push_back(connect_loopback(port));
      ASSERT_TRUE(into.back()) << "connection " << i;
      ASSERT_EQ(::send(into.back().get(), head.data(), head.size(), MSG_NOSIGNAL), static_cast<ssize_t>(head.size()));
    }
  };
  std::vector<UniqueFd> warm_up;  // one-off pools: parser states, buffer ring pages, frames
  open_uploads(warm_up, 20);
  std::this_thread::sleep_for(300ms);
  const long size_before = proc_status_kib(server.pid(), "VmSize");
  const long rss_before = proc_status_kib(server.pid(), "VmRSS");
  constexpr int kUploads = 200;
  std::vector<UniqueFd> uploads;
  open_uploads(uploads, kUploads);
  std::this_thread::sleep_for(500ms);  // every header section and its first body bytes are read
  const long size_after = proc_status_kib(server.pid(), "VmSize");
  const long rss_after = proc_status_kib(server.pid(), "VmRSS");
  ASSERT_GT(size_before, 0);
  // Reserving the declared bodies would take 200 x 4 MiB = 800 MiB of address space.
  EXPECT_LT(size_after - size_before, 64 * 1024) << "VmSize grew from " << size_before << " to " << size_after
                                                 << " kB for " << kUploads << " bodies declared but not sent";
  EXPECT_LT(rss_after - rss_before, 32 * 1024) << "VmRSS grew from " << rss_before << " to " << rss_after << " kB";
  // The uploads are still served when they arrive.
  const std::string rest(kDeclared - 3, 'x');
  EXPECT_EQ(echo_roundtrip(uploads.front().get(), rest).substr(0, 12), "HTTP/1.1 200");
}

TEST(Hardening, ABodySentAByteAtATimeGets408AtTheTotalBodyTimeout) {
  ServerProcess server(R"({"listeners": [{"name": "web", "address": "127.0.0.1:0", "protocol": "http",
      "timeouts": {"body_ms": 1000, "body_total_ms": 1000},
      "routes": [{"method": "POST", "path": "/echo", "handler": "echo"}]}]})");
  const int port = server.port_of("web");
  ASSERT_GT(port, 0);
  // A normal upload passes.
  const std::string body(256 * 1024, 'u');
  std::chrono::milliseconds took{0};
  const std::string uploaded = timed_exchange(
      port, "POST /echo HTTP/1.1\r\nHost: t\r\nConnection: close\r\nContent-Length: " + std::to_string(body.size()) +
                "\r\n\r\n" + body,
      took);
  EXPECT_EQ(uploaded.rfind("HTTP/1.1 200 ", 0), 0u) << uploaded.substr(0, 200);
  EXPECT_EQ(uploaded.size() - uploaded.find("\r\n\r\n") - 4, body.size());

  // A byte every 100 ms: never a pause of body_ms, but the whole body is late.
  UniqueFd fd = connect_loopback(port);
  ASSERT_TRUE(fd);
  const std::string head = "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 1000\r\n\r\n";
  ASSERT_EQ(::send(fd.get(), head.data(), head.size(), MSG_NOSIGNAL), static_cast<ssize_t>(head.size()));
  const auto start = std::chrono::steady_clock::now();
  std::string reply;
  while (std::chrono::steady_clock::now() - start < 5s && reply.find("\r\n\r\n") == std::string::npos) {
    pollfd p{fd.get(), POLLIN, 0};
    if (::poll(&p, 1, 100) == 1) {
      char buffer[1024];
      const ssize_t n = ::recv(fd.get(), buffer, sizeof buffer, 0);
      if (n <= 0) break;
      reply.append(buffer, static_cast<std::size_t>(n));
    } else {
      ::send(fd.get(), "x", 1, MSG_NOSIGNAL);
    }
  }
  const auto waited = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(reply.rfind("HTTP/1.1 408 ", 0), 0u) << reply;
  EXPECT_GE(waited, 900ms);
  EXPECT_LT(waited, 1500ms) << "the body's total budget is 1 s";
}

// Sends a chunked POST of `body_bytes` with blocking sends, and only then
// reads the response, as a client does that reads once its request is out.
// Returns the response, or what went wrong before it was read whole.
std::string upload_then_read(int port, std::size_t body_bytes) {
  UniqueFd fd = connect_loopback(port);
  if (!fd) return "connect failed";
  const timeval patience{10, 0};
  ::setsockopt(fd.get(), SOL_SOCKET, SO_SNDTIMEO, &patience, sizeof patience);
  ::setsockopt(fd.get(), SOL_SOCKET, SO_RCVTIMEO, &patience, sizeof patience);
  auto send_all = [&](const std::string& data) {
    for (std::size_t sent = 0; sent < data.size();) {
      const ssize_t n = ::send(fd.get(), data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) return false;
      sent += static_cast<std::size_t>(n);
    }
    return true;
  };
  constexpr std::size_t kChunk = 256 * 1024;
  const std::string chunk = "40000\r\n" + std::string(kChunk, 'u') + "\r\n";
  if (!send_all("POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n")) return "send failed";
  for (std::size_t sent = 0; sent < body_bytes; sent += kChunk) {
    if (!send_all(chunk)) return std::string("send failed mid-body: ") + std::strerror(errno);
  }
  if (!send_all("0\r\n\r\n")) return std::string("send failed at the end: ") + std::strerror(errno);
  std::string reply;
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::recv(fd.get(), buffer, sizeof buffer, 0);
    if (n < 0) return std::string("recv failed: ") + std::strerror(errno) + " after " + reply;
    if (n == 0) return reply;
    reply.append(buffer, static_cast<std::size_t>(n));
  }
}

TEST(Hardening, AClientStillUploadingReadsItsWhole413InsteadOfAReset) {
  ServerProcess server(R"({"listeners": [{"name": "web", "address": "127.0.0.1:0", "protocol": "http",
      "limits": {"max_body_bytes": 1024},
      "routes": [{"method": "POST", "path": "/echo", "handler": "echo"}]}]})");
  const int port = server.port_of("web");
  ASSERT_GT(port, 0);
  // Why 50 MB: the body is refused after 1 KiB, and the rest is still being
  // sent when the 413 goes out; closing then, with its bytes unread, resets.
  constexpr std::size_t kBody = 50 * 1024 * 1024;
  constexpr int kTries = 40;
  const std::string expected_end = "\r\n\r\n413 Content Too Large\n";
  int whole = 0;
  std::string first_failure;
  for (int i = 0; i < kTries; ++i) {
    const std::string reply = upload_then_read(port, kBody);
    const bool ok = reply.rfind("HTTP/1.1 413 ", 0) == 0 && reply.size() >= expected_end.size() &&
                    reply.compare(reply.size() - expected_end.size(), expected_end.size(), expected_end) == 0;
    if (ok) {
      ++whole;
    } else if (first_failure.empty()) {
      first_failure = "try " + std::to_string(i) + ": " + reply.substr(0, 200);
    }
  }
  EXPECT_EQ(whole, kTries) << first_failure;
}

TEST(Hardening, RunningOutOfDescriptorsNeitherSpinsNorKills) {
  // Why: UBSan's vptr check reads memory through IsAccessibleMemoryRange,
  // which needs a pipe() — two file descriptors. In a process out of them it
  // reports every virtual call as "invalid vptr" and aborts: a false positive
  // of the sanitizer runtime, not of the server. The plain build runs it.
  if (binary_is_sanitized()) GTEST_SKIP() << "UBSan's vptr check needs file descriptors this test takes away";
  ServerProcess server({"prlimit", "--nofile=64:64"}, kSite);
  const int port = server.port_of("web");
  ASSERT_GT(port, 0);
  std::vector<UniqueFd> hogs;
  for (int i = 0; i < 120; ++i) hogs.push_back(connect_loopback(port));  // more than the server has fds
  std::this_thread::sleep_for(300ms);  // the server is now failing accept with EMFILE
  const auto cpu_before = server.cpu_time();
  std::this_thread::sleep_for(2s);
  const auto cpu_used = server.cpu_time() - cpu_before;
  EXPECT_LT(cpu_used, 200ms) << "the accept loop spun on EMFILE";
  hogs.clear();  // the clients leave
  std::chrono::milliseconds took = 1h;
  for (int attempt = 0; attempt < 20 && took > 5s; ++attempt) {
    took = timed_request(port);
    if (took > 5s) std::this_thread::sleep_for(100ms);
  }
  EXPECT_LT(took, 5s) << "the server did not recover";
  EXPECT_TRUE(server.running());
}

}  // namespace
}  // namespace tiffany::testing

namespace tiffany::testing {
namespace {

TEST(AccessLogFile, GetsOneLinePerRequestWrittenInBatches) {
  TempDir dir;
  const std::string log_path = dir.path() + "/access.log";
  ServerProcess server(R"({"access_log": {"path": ")" + log_path + R"(", "format": "json"},
      "listeners": [{"name": "web", "address": "127.0.0.1:0", "protocol": "http",
      "routes": [{"method": "GET", "path": "/plaintext", "handler": "text", "body": "Hello, World!"}]}]})");
  const int port = server.port_of("web");
  ASSERT_GT(port, 0);
  for (const char* path : {"/plaintext", "/missing", "/plaintext?x=1"}) {
    UniqueFd fd = connect_loopback(port);
    const std::string request = std::string("GET ") + path + " HTTP/1.1\r\nHost: t\r\nUser-Agent: tester\r\nConnection: close\r\n\r\n";
    ::send(fd.get(), request.data(), request.size(), MSG_NOSIGNAL);
    char buffer[1024];
    while (::recv(fd.get(), buffer, sizeof buffer, 0) > 0) {
    }
  }
  server.send_signal(SIGTERM);
  ASSERT_EQ(server.wait_for_exit(5s), 0);
  const std::string log = read_file(log_path);
  EXPECT_EQ(std::count(log.begin(), log.end(), '\n'), 3) << log;
  EXPECT_NE(log.find(R"("path":"/plaintext","query":"","status":200,"bytes":13,)"), std::string::npos) << log;
  EXPECT_NE(log.find(R"("path":"/missing","query":"","status":404,)"), std::string::npos) << log;
  EXPECT_NE(log.find(R"("query":"x=1","status":200)"), std::string::npos) << log;
  EXPECT_NE(log.find(R"("user_agent":"tester")"), std::string::npos) << log;
}

}  // namespace
}  // namespace tiffany::testing
