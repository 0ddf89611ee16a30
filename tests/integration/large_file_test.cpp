// Large static files end to end: sent from the page cache, so slow readers
// cost the server no buffers, and every byte arrives in order.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <tiffany/reactor/unique_fd.hpp>

#include "server_process.hpp"

namespace tiffany::testing {
namespace {

using namespace std::chrono_literals;

constexpr std::size_t kFileBytes = 32 * 1024 * 1024;

// The byte at `offset` of the test file: a pattern that shows misplaced bytes.
char pattern_at(std::size_t offset) { return static_cast<char>('a' + (offset / 4096 + offset) % 26); }

std::string make_file(const TempDir& root) {
  std::string content(kFileBytes, '\0');
  for (std::size_t i = 0; i < content.size(); ++i) content[i] = pattern_at(i);
  return root.write("big.bin", content);
}

long resident_kib(pid_t pid) { return proc_status_kib(pid, "VmRSS"); }

// A client whose receive buffer is tiny: it asks for the file and then reads
// nothing, so the server's writes block at once.
UniqueFd slow_reader(int port, const std::string& path) {
  UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  const int small = 4096;
  ::setsockopt(fd.get(), SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) return UniqueFd{};
  const std::string request = "GET " + path + " HTTP/1.1\r\nHost: t\r\n\r\n";
  if (::send(fd.get(), request.data(), request.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(request.size())) {
    return UniqueFd{};
  }
  return fd;
}

// Reads one whole response on `fd` (within `limit`); returns the body after
// the head, and the head in `head`.
std::string read_response(int fd, std::string& head, std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  const timeval tick{0, 200'000};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tick, sizeof tick);
  std::string all;
  std::vector<char> buffer(1 << 20);
  std::size_t expected = std::string::npos;
  while (std::chrono::steady_clock::now() < deadline) {
    const ssize_t got = ::recv(fd, buffer.data(), buffer.size(), 0);
    if (got == 0) break;
    if (got < 0) continue;  // the tick: look at the deadline
    all.append(buffer.data(), static_cast<std::size_t>(got));
    const std::size_t end = all.find("\r\n\r\n");
    if (end == std::string::npos) continue;
    if (expected == std::string::npos) {
      head = all.substr(0, end + 4);
      const std::size_t at = head.find("Content-Length: ");
      if (at == std::string::npos) break;
      expected = end + 4 + std::strtoull(head.c_str() + at + 16, nullptr, 10);
    }
    if (all.size() >= expected) break;
  }
  return head.empty() ? std::string() : all.substr(head.size());
}

TEST(LargeFiles, ArriveWholeAndInOrderAlsoAsARange) {
  TempDir root;
  make_file(root);
  ServerProcess server(R"({"workers": 1, "listeners": [{"name": "web", "address": "127.0.0.1:0", "protocol": "http",
      "routes": [{"method": "GET", "path": "/files/*", "handler": "static", "root": ")" + root.path() + R"("}]}]})");
  const int port = server.port_of("web");
  ASSERT_GT(port, 0);
  UniqueFd whole = slow_reader(port, "/files/big.bin");
  ASSERT_TRUE(whole);
  std::string head;
  const std::string body = read_response(whole.get(), head, 30s);
  EXPECT_NE(head.find("HTTP/1.1 200 OK"), std::string::npos) << head;
  ASSERT_EQ(body.size(), kFileBytes);
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < body.size(); ++i) wrong += body[i] != pattern_at(i) ? 1 : 0;
  EXPECT_EQ(wrong, 0u);

  // A range from the middle.
  UniqueFd ranged(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::connect(ranged.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address), 0);
  const std::string request = "GET /files/big.bin HTTP/1.1\r\nHost: t\r\nRange: bytes=10000000-19999999\r\n\r\n";
  ASSERT_EQ(::send(ranged.get(), request.data(), request.size(), MSG_NOSIGNAL), static_cast<ssize_t>(request.size()));
  head.clear();
  const std::string part = read_response(ranged.get(), head, 30s);
  EXPECT_NE(head.find("HTTP/1.1 206 Partial Content"), std::string::npos) << head;
  ASSERT_EQ(part.size(), 10'000'000u);
  wrong = 0;
  for (std::size_t i = 0; i < part.size(); ++i) wrong += part[i] != pattern_at(10'000'000 + i) ? 1 : 0;
  EXPECT_EQ(wrong, 0u);
}

TEST(LargeFiles, SlowReadersHoldNoBuffersOfTheServers) {
  if (binary_is_sanitized()) GTEST_SKIP() << "sanitizers pad every allocation; the plain build measures the memory";
  // Why so loose a bound: it guards the design (the file goes from the page
  // cache to the socket, a few KiB of state per connection), not the figure.
  // Reading the file through a 64 KiB buffer held for the reader cost about
  // 128 KiB per slow connection.
  TempDir root;
  make_file(root);
  ServerProcess server(R"({"workers": 1, "listeners": [{"name": "web", "address": "127.0.0.1:0", "protocol": "http",
      "routes": [{"method": "GET", "path": "/files/*", "handler": "static", "root": ")" + root.path() + R"("},
                 {"method": "GET", "path": "/health", "handler": "health"}]}]})");
  const int port = server.port_of("web");
  ASSERT_GT(port, 0);
  std::vector<UniqueFd> readers;
  for (int i = 0; i < 20; ++i) readers.push_back(slow_reader(port, "/files/big.bin"));  // warm one-off pools
  std::this_thread::sleep_for(300ms);
  const long before = resident_kib(server.pid());
  constexpr int kMore = 200;
  for (int i = 0; i < kMore; ++i) {
    readers.push_back(slow_reader(port, "/files/big.bin"));
    ASSERT_TRUE(readers.back());
  }
  std::this_thread::sleep_for(500ms);  // every reader's socket buffers are full by now
  const long after = resident_kib(server.pid());
  ASSERT_GT(before, 0);
  const double bytes_each = static_cast<double>(after - before) * 1024 / kMore;
  EXPECT_LT(bytes_each, 24 * 1024) << "RSS grew from " << before << " to " << after << " kB for " << kMore
                                   << " slow readers";
  // The worker is not stuck behind them.
  const RunResult health = run_program("curl", {"-sS", "--max-time", "5", "http://127.0.0.1:" + std::to_string(port) + "/health"});
  EXPECT_EQ(health.out, "ok") << health.err;
}

// A file that shrinks while it is sent (rewritten in place) cuts its response short: the error log
// says so, as nginx's "sendfile() reported that ... was truncated", and the access log marks the line.
TEST(LargeFiles, AFileTruncatedWhileItIsSentIsLoggedAsAnErrorAndMarkedIncomplete) {
  TempDir root;
  const std::string file = make_file(root);
  TempDir logs;
  const std::string error_log = logs.path() + "/error.log";
  const std::string access_log = logs.path() + "/access.log";
  ServerProcess server(R"({"workers": 1, "error_log": {"path": ")" + error_log + R"("},
      "access_log": {"path": ")" + access_log + R"(", "format": "json"},
      "listeners": [{"name": "web", "address": "127.0.0.1:0", "protocol": "http",
      "routes": [{"method": "GET", "path": "/files/*", "handler": "static", "root": ")" + root.path() + R"("}]}]})");
  const int port = server.port_of("web", error_log);
  ASSERT_GT(port, 0);
  UniqueFd reader = slow_reader(port, "/files/big.bin");
  ASSERT_TRUE(reader);
  std::this_thread::sleep_for(200ms);  // the server's sendfile waits on the full socket by now
  ASSERT_EQ(::truncate(file.c_str(), 1 << 20), 0);
  std::string head;
  const std::string body = read_response(reader.get(), head, 30s);
  EXPECT_NE(head.find("Content-Length: 33554432"), std::string::npos) << head;
  EXPECT_LT(body.size(), kFileBytes) << "the whole file arrived";
  std::string errors;
  std::string accesses;
  const auto until = std::chrono::steady_clock::now() + 10s;
  do {  // the access log is flushed within a second
    std::this_thread::sleep_for(100ms);
    errors = read_file(error_log);
    accesses = read_file(access_log);
  } while (accesses.find("incomplete") == std::string::npos && std::chrono::steady_clock::now() < until);
  EXPECT_NE(errors.find("big.bin\" was truncated at 1048576 bytes while it was sent (33554432 expected)"),
            std::string::npos)
      << errors;
  EXPECT_NE(errors.find("[error]"), std::string::npos) << errors;
  EXPECT_NE(accesses.find(R"("path":"/files/big.bin","query":"","status":200)"), std::string::npos) << accesses;
  EXPECT_NE(accesses.find(R"("incomplete":true})"), std::string::npos) << accesses;
}

}  // namespace
}  // namespace tiffany::testing
