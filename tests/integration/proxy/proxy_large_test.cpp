// The proxy with 1 GiB bodies both ways: streamed piece by piece, so the proxy's resident memory stays flat.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <string>
#include <thread>

#include "../echo_client.hpp"
#include "../server_process.hpp"
#include "proxy_client.hpp"
#include "support/loopback_socket.hpp"

namespace tiffany::testing {
namespace {

constexpr std::uint64_t kGiB = 1ULL << 30;
// Why 48 MiB: the proxy's buffers are a few socket reads per connection; a
// body held whole would add 1024 MiB. The margin absorbs allocator noise.
constexpr long kFlatKib = 48 * 1024;

std::string proxy_config(int upstream_port, const std::string& path) {
  return R"({"workers": 1, "upstreams": {"app": {"servers": ["127.0.0.1:)" + std::to_string(upstream_port) +
         R"("]}}, "listeners": [{"name": "px", "address": "127.0.0.1:0", "protocol": "http",
           "limits": {"max_body_bytes": 1073741824}, "routes": [
           {"path": ")" + path + R"(", "handler": "proxy", "with": {"upstream": "app"}}]}]})";
}

TEST(ProxyLarge, AGibibyteDownloadPassesThroughWithFlatProxyMemory) {
  if (binary_is_sanitized()) GTEST_SKIP() << "memory is not measured under sanitizers";
  TempDir files;
  {
    const int fd = ::open((files.path() + "/big.bin").c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::ftruncate(fd, static_cast<off_t>(kGiB)), 0);  // sparse: zeros, no disk
    ::close(fd);
  }
  ServerProcess up(R"({"workers": 1, "listeners": [{"name": "up", "address": "127.0.0.1:0", "protocol": "http",
    "routes": [{"path": "/files/*", "handler": "static", "with": {"root": ")" + files.path() + R"("}}]}]})");
  ServerProcess proxy(proxy_config(up.port_of("up"), "/files/*"));
  const int port = proxy.port_of("px");
  const UniqueFd fd = connect_loopback(port);
  ASSERT_TRUE(fd.valid());
  const long rss_before = proc_status_kib(proxy.pid(), "VmRSS");
  ASSERT_TRUE(send_all(fd.get(), get_request("/files/big.bin")));
  // A client that reads nothing for a second: back-pressure must stop the
  // proxy reading the upstream, not let it buffer the body.
  std::this_thread::sleep_for(std::chrono::seconds(1));
  long rss_peak = proc_status_kib(proxy.pid(), "VmRSS");
  EXPECT_LT(rss_peak - rss_before, kFlatKib) << "a stalled client made the proxy buffer";
  std::string head;
  std::uint64_t body = 0;
  std::uint64_t next_sample = 0;
  std::vector<char> buffer(1 << 20);
  for (;;) {
    pollfd poller{fd.get(), POLLIN, 0};
    ASSERT_EQ(::poll(&poller, 1, 20000), 1) << "stalled after " << body << " bytes";
    const ssize_t n = ::recv(fd.get(), buffer.data(), buffer.size(), 0);
    if (n <= 0) break;
    std::size_t from = 0;
    if (head.find("\r\n\r\n") == std::string::npos) {
      head.append(buffer.data(), static_cast<std::size_t>(n));
      const std::size_t end = head.find("\r\n\r\n");
      if (end == std::string::npos) continue;
      body += head.size() - end - 4;
      head.resize(end + 4);
      from = static_cast<std::size_t>(n);
    }
    body += static_cast<std::size_t>(n) - from;
    if (body >= next_sample) {
      rss_peak = std::max(rss_peak, proc_status_kib(proxy.pid(), "VmRSS"));
      next_sample += 64 << 20;
    }
  }
  EXPECT_EQ(status_of(head), 200) << head;
  EXPECT_NE(head.find("Content-Length: 1073741824"), std::string::npos) << head;
  EXPECT_EQ(body, kGiB);
  RecordProperty("proxy_rss_growth_kib", std::to_string(rss_peak - rss_before));
  EXPECT_LT(rss_peak - rss_before, kFlatKib) << "proxy RSS grew from " << rss_before << " to " << rss_peak << " KiB";
}

TEST(ProxyLarge, AGibibyteUploadPassesThroughWithFlatProxyMemory) {
  if (binary_is_sanitized()) GTEST_SKIP() << "memory is not measured under sanitizers";
  // The upstream: reads the head, counts the body away, answers the count.
  LoopbackSocket listener(true);
  std::atomic<std::uint64_t> received{0};
  std::thread upstream([&] {
    const int fd = ::accept4(listener.fd.get(), nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) return;
    std::string head;
    std::vector<char> buffer(1 << 20);
    std::uint64_t count = 0;
    for (;;) {
      const ssize_t n = ::recv(fd, buffer.data(), buffer.size(), 0);
      if (n <= 0) break;
      if (head.find("\r\n\r\n") == std::string::npos) {
        head.append(buffer.data(), static_cast<std::size_t>(n));
        const std::size_t end = head.find("\r\n\r\n");
        if (end == std::string::npos) continue;
        count += head.size() - end - 4;
      } else {
        count += static_cast<std::uint64_t>(n);
      }
      if (count >= kGiB) break;
    }
    received = count;
    const std::string answer = std::to_string(count);
    send_all(fd, "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(answer.size()) + "\r\n\r\n" + answer);
    ::close(fd);
  });
  ServerProcess proxy(proxy_config(listener.port(), "/upload"));
  const int port = proxy.port_of("px");
  const UniqueFd fd = connect_loopback(port);
  ASSERT_TRUE(fd.valid());
  ASSERT_TRUE(send_all(fd.get(), "PUT /upload HTTP/1.1\r\nHost: h\r\nConnection: close\r\nContent-Length: " +
                                     std::to_string(kGiB) + "\r\n\r\n"));
  const long rss_before = proc_status_kib(proxy.pid(), "VmRSS");
  long rss_peak = rss_before;
  const std::string piece(1 << 20, 'u');
  for (std::uint64_t sent = 0; sent < kGiB; sent += piece.size()) {
    const bool sent_piece = send_all(fd.get(), piece);
    EXPECT_TRUE(sent_piece) << "the proxy stopped reading after " << sent << " bytes";
    if (!sent_piece) {
      ::shutdown(listener.fd.get(), SHUT_RDWR);  // Why: lets the upstream thread end
      break;
    }
    if (sent % (64 << 20) == 0) rss_peak = std::max(rss_peak, proc_status_kib(proxy.pid(), "VmRSS"));
  }
  const std::string reply = http_exchange_rest(fd.get());
  upstream.join();
  EXPECT_EQ(received.load(), kGiB);
  EXPECT_EQ(status_of(reply), 200) << reply;
  EXPECT_EQ(body_of(reply), std::to_string(kGiB));
  RecordProperty("proxy_rss_growth_kib", std::to_string(rss_peak - rss_before));
  EXPECT_LT(rss_peak - rss_before, kFlatKib) << "proxy RSS grew from " << rss_before << " to " << rss_peak << " KiB";
}

}  // namespace
}  // namespace tiffany::testing
