// Streaming request bodies end to end: the upload_digest example plugin in the real binary, over raw sockets.
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>

#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <string_view>
#include <thread>

#include "echo_client.hpp"
#include "server_process.hpp"
#include "support/upload_digest_check.hpp"

namespace tiffany::testing {
namespace {

using namespace std::chrono_literals;

const std::string kPlugins = under_test(TIFFANY_PLUGIN_DIR);

// Whether `pid` has ended (a zombie waiting to be reaped counts).
bool exited(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return true;
  const std::size_t after_name = line.rfind(')');
  return after_name == std::string::npos || line.compare(after_name + 2, 1, "Z") == 0;
}

bool send_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t sent = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (sent <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(sent));
  }
  return true;
}

// What arrives within `wait` (empty if nothing); "<closed>" appended at EOF.
std::string read_within(int fd, std::chrono::milliseconds wait) {
  std::string got;
  pollfd poller{fd, POLLIN, 0};
  while (::poll(&poller, 1, static_cast<int>(wait.count())) == 1) {
    char buffer[65536];
    const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
    if (n <= 0) {
      got += "<closed>";
      break;
    }
    got.append(buffer, static_cast<std::size_t>(n));
    wait = 200ms;  // then only what follows at once
  }
  return got;
}

// Reads one response (head and Content-Length body) from `fd`, `buffer`
// holding what was read beyond the previous one. Empty on timeout or EOF.
std::string read_response(int fd, std::string& buffer, std::chrono::milliseconds timeout = 20s) {
  const auto until = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    const std::size_t head_end = buffer.find("\r\n\r\n");
    if (head_end != std::string::npos) {
      std::size_t length = 0;
      const std::size_t field = buffer.find("Content-Length: ");
      if (field != std::string::npos && field < head_end) {
        std::from_chars(buffer.data() + field + 16, buffer.data() + head_end, length);
      }
      if (buffer.size() >= head_end + 4 + length) {
        std::string response = buffer.substr(0, head_end + 4 + length);
        buffer.erase(0, response.size());
        return response;
      }
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
    if (left.count() <= 0) return {};
    pollfd poller{fd, POLLIN, 0};
    if (::poll(&poller, 1, static_cast<int>(left.count())) != 1) return {};
    char chunk[65536];
    const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
    if (n <= 0) return {};
    buffer.append(chunk, static_cast<std::size_t>(n));
  }
}

class StreamedBody : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string config = R"({"drain_timeout_ms": 3000, "plugins": [")" + kPlugins + R"(/libupload_digest.so"],
      "listeners": [{"name": "web", "address": "127.0.0.1:0", "protocol": "http",
        "limits": {"max_body_bytes": 1073741824},
        "routes": [
          {"method": "POST", "path": "/digest", "handler": "upload_digest.digest"},
          {"method": "POST", "path": "/small", "handler": "upload_digest.digest", "max_bytes": 1000},
          {"method": "POST", "path": "/slow", "handler": "upload_digest.digest", "first_read_delay_ms": 600},
          {"method": "POST", "path": "/parts", "handler": "upload_digest.parts"},
          {"method": "GET", "path": "/plaintext", "handler": "text", "body": "after"}]},
        {"name": "tight", "address": "127.0.0.1:0", "protocol": "http",
         "limits": {"max_body_bytes": 65536},
         "routes": [{"method": "POST", "path": "/digest", "handler": "upload_digest.digest"}]},
        {"name": "impatient", "address": "127.0.0.1:0", "protocol": "http", "timeouts": {"body_ms": 300},
         "routes": [{"method": "POST", "path": "/digest", "handler": "upload_digest.digest"}]}]})";
    server_ = std::make_unique<ServerProcess>(config);
    port_ = server_->port_of("web");
    tight_port_ = server_->port_of("tight");
    impatient_port_ = server_->port_of("impatient");
  }

  // SIGTERM (unless `signal` is false: sent already), then true if the
  // server exited 0 within `bound`. If not, says how much CPU it burned in a
  // second of waiting (a spin, or a wait) and kills it.
  ::testing::AssertionResult drains_within(std::chrono::milliseconds bound, bool signal = true) {
    if (signal) server_->send_signal(SIGTERM);
    const auto until = std::chrono::steady_clock::now() + bound;
    while (std::chrono::steady_clock::now() < until && !exited(server_->pid())) std::this_thread::sleep_for(10ms);
    if (!exited(server_->pid())) {
      const auto before = server_->cpu_time();
      std::this_thread::sleep_for(1s);
      const auto spent = server_->cpu_time() - before;
      (void)server_->wait_for_exit(0ms);  // kills it
      return ::testing::AssertionFailure() << "still running " << bound.count() << " ms after SIGTERM, using "
                                           << spent.count() << " ms of CPU in the next second; log:\n"
                                           << server_->err();
    }
    const int code = server_->wait_for_exit(1s);
    if (code == 0) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "exit code " << code << "; log:\n" << server_->err();
  }

  std::unique_ptr<ServerProcess> server_;
  int port_ = 0;
  int tight_port_ = 0;
  int impatient_port_ = 0;
};

TEST_F(StreamedBody, ASizedUploadReachesTheHandlerInPiecesAndWhole) {
  const std::string body = pattern_body(300 * 1000);
  UniqueFd fd = connect_loopback(port_);
  ASSERT_TRUE(send_all(fd.get(), "POST /digest HTTP/1.1\r\nHost: t\r\nContent-Length: " + std::to_string(body.size()) +
                                     "\r\n\r\n" + body));
  std::string buffer;
  const std::string response = read_response(fd.get(), buffer);
  EXPECT_EQ(response.rfind("HTTP/1.1 200", 0), 0u) << response;
  EXPECT_NE(response.find(digest_json(body.size(), body)), std::string::npos) << response;
  EXPECT_NE(response.find("\"streamed\":true"), std::string::npos) << response;
  EXPECT_EQ(response.find("\"pieces\":1,"), std::string::npos) << "300 KB arrived as one piece: " << response;
}

TEST_F(StreamedBody, AChunkedUploadIsDecodedForTheHandler) {
  const std::string body = pattern_body(70 * 1000);
  std::string wire = "POST /digest HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n";
  for (std::size_t at = 0; at < body.size(); at += 7000) {
    char size[16];
    const std::size_t length = std::min<std::size_t>(7000, body.size() - at);
    const auto [end, error] = std::to_chars(size, size + sizeof size, length, 16);
    wire.append(size, end) += "\r\n";
    wire += body.substr(at, 7000) + "\r\n";
  }
  wire += "0\r\n\r\n";
  UniqueFd fd = connect_loopback(port_);
  ASSERT_TRUE(send_all(fd.get(), wire));
  std::string buffer;
  const std::string response = read_response(fd.get(), buffer);
  EXPECT_EQ(response.rfind("HTTP/1.1 200", 0), 0u) << response;
  EXPECT_NE(response.find(digest_json(body.size(), body)), std::string::npos) << response;
}

TEST_F(StreamedBody, ContinueIsSentOnlyWhenTheHandlerStartsReading) {
  const std::string body = pattern_body(5000);
  UniqueFd fd = connect_loopback(port_);
  ASSERT_TRUE(
      send_all(fd.get(), "POST /slow HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 5000\r\n\r\n"));
  // The handler works 600 ms before its first read: nothing comes before that.
  EXPECT_EQ(read_within(fd.get(), 300ms), "");
  const std::string invited = read_within(fd.get(), 3000ms);
  EXPECT_EQ(invited, "HTTP/1.1 100 Continue\r\n\r\n");
  ASSERT_TRUE(send_all(fd.get(), body));
  std::string buffer;
  const std::string response = read_response(fd.get(), buffer);
  EXPECT_EQ(response.rfind("HTTP/1.1 200", 0), 0u) << response;
  EXPECT_NE(response.find(digest_json(body.size(), body)), std::string::npos) << response;
}

TEST_F(StreamedBody, AHandlerAnsweringWithoutReadingNeverInvitesTheBody) {
  UniqueFd fd = connect_loopback(port_);
  ASSERT_TRUE(
      send_all(fd.get(), "POST /small HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 500000\r\n\r\n"));
  // The body is never sent: the answer comes anyway, with no 100 before it, and the connection closes.
  const std::string got = read_within(fd.get(), 5000ms);
  EXPECT_EQ(got.rfind("HTTP/1.1 413", 0), 0u) << got;
  EXPECT_EQ(got.find("100 Continue"), std::string::npos) << got;
  EXPECT_NE(got.find("Connection: close"), std::string::npos) << got;
  EXPECT_NE(got.find("500000 bytes declared"), std::string::npos) << got;
}

TEST_F(StreamedBody, AnUnreadSmallBodyIsDroppedAndTheConnectionServesTheNextRequest) {
  const std::string body = pattern_body(20000);
  UniqueFd fd = connect_loopback(port_);
  ASSERT_TRUE(send_all(fd.get(), "POST /small HTTP/1.1\r\nHost: t\r\nContent-Length: 20000\r\n\r\n" + body));
  std::string buffer;
  const std::string refused = read_response(fd.get(), buffer);
  EXPECT_EQ(refused.rfind("HTTP/1.1 413", 0), 0u) << refused;
  EXPECT_EQ(refused.find("Connection: close"), std::string::npos) << refused;
  ASSERT_TRUE(send_all(fd.get(), "GET /plaintext HTTP/1.1\r\nHost: t\r\n\r\n"));
  const std::string next = read_response(fd.get(), buffer);
  EXPECT_EQ(next.rfind("HTTP/1.1 200", 0), 0u) << next;
  EXPECT_EQ(next.substr(next.size() - 5), "after");
}

TEST_F(StreamedBody, ABodyPastTheLimitMidStreamIs413AndCloses) {
  UniqueFd fd = connect_loopback(tight_port_);
  std::string wire = "POST /digest HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n";
  const std::string piece = pattern_body(16384);
  for (int i = 0; i < 6; ++i) wire += "4000\r\n" + piece + "\r\n";  // 96 KiB past a 64 KiB limit
  wire += "0\r\n\r\n";
  ASSERT_TRUE(send_all(fd.get(), wire));
  const std::string got = read_within(fd.get(), 5000ms);
  EXPECT_EQ(got.rfind("HTTP/1.1 413", 0), 0u) << got;
  EXPECT_NE(got.find("Connection: close"), std::string::npos) << got;
  EXPECT_NE(got.find("<closed>"), std::string::npos) << got;
}

TEST_F(StreamedBody, ARequestPipelinedAfterAStreamedBodyIsAnsweredInOrder) {
  const std::string body = pattern_body(3000);
  UniqueFd fd = connect_loopback(port_);
  ASSERT_TRUE(send_all(fd.get(), "POST /digest HTTP/1.1\r\nHost: t\r\nContent-Length: 3000\r\n\r\n" + body +
                                     "GET /plaintext HTTP/1.1\r\nHost: t\r\n\r\n"));
  std::string buffer;
  const std::string first = read_response(fd.get(), buffer);
  const std::string second = read_response(fd.get(), buffer);
  EXPECT_NE(first.find(digest_json(body.size(), body)), std::string::npos) << first;
  EXPECT_EQ(second.rfind("HTTP/1.1 200", 0), 0u) << second;
  EXPECT_EQ(second.substr(second.size() - 5), "after");
}

TEST_F(StreamedBody, AMultipartUploadIsParsedPartByPartAsItArrives) {
  const std::string photo = pattern_body(200 * 1000);
  const std::string body = "--b0und\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\npear\r\n"
                           "--b0und\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"p.jpg\"\r\n\r\n" +
                           photo + "\r\n--b0und--\r\n";
  UniqueFd fd = connect_loopback(port_);
  const std::string head =
      "POST /parts HTTP/1.1\r\nHost: t\r\nContent-Type: multipart/form-data; boundary=b0und\r\nContent-Length: ";
  ASSERT_TRUE(send_all(fd.get(), head + std::to_string(body.size()) + "\r\n\r\n" + body));
  std::string buffer;
  const std::string response = read_response(fd.get(), buffer);
  EXPECT_EQ(response.rfind("HTTP/1.1 200", 0), 0u) << response;
  EXPECT_NE(response.find("\"bytes\":4,\"fnv1a64\":\"" + fnv1a64("pear") + "\",\"name\":\"title\""), std::string::npos)
      << response;
  EXPECT_NE(response.find("\"bytes\":200000,\"filename\":\"p.jpg\",\"fnv1a64\":\"" + fnv1a64(photo) + "\""),
            std::string::npos)
      << response;
}

TEST_F(StreamedBody, AStalledStreamedBodyGets408AtTheBodyTimeoutAndCloses) {
  UniqueFd fd = connect_loopback(impatient_port_);
  ASSERT_TRUE(send_all(fd.get(), "POST /digest HTTP/1.1\r\nHost: t\r\nContent-Length: 200000\r\n\r\n" +
                                     pattern_body(89000)));
  // The client falls silent: body_ms (300 ms) later the read times out.
  const auto start = std::chrono::steady_clock::now();
  const std::string got = read_within(fd.get(), 5000ms);
  EXPECT_EQ(got.rfind("HTTP/1.1 408", 0), 0u) << got;
  EXPECT_NE(got.find("Connection: close"), std::string::npos) << got;
  EXPECT_NE(got.find("<closed>"), std::string::npos) << got;
  EXPECT_LT(std::chrono::steady_clock::now() - start, 3s);
}

// A handler waiting for body bytes a silent client never sends has a request
// in flight: the drain lets it finish until drain_timeout_ms (3 s here), then
// counts it, closes it and exits, without spinning while it waits.
TEST_F(StreamedBody, ADrainEndsAtItsTimeoutWhenAHandlerWaitsForBodyBytes) {
  UniqueFd fd = connect_loopback(port_);
  ASSERT_TRUE(send_all(fd.get(),
                       "POST /digest HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 200000\r\n\r\n"));
  // "100 Continue" comes from the handler's first read: it is waiting now.
  ASSERT_EQ(read_within(fd.get(), 5000ms), "HTTP/1.1 100 Continue\r\n\r\n");
  ASSERT_TRUE(send_all(fd.get(), pattern_body(89000)));  // 111 KB stay unsent; the client stays open and silent
  std::this_thread::sleep_for(50ms);  // the handler has the bytes and waits again
  const auto cpu_before = server_->cpu_time();
  const auto start = std::chrono::steady_clock::now();
  server_->send_signal(SIGTERM);
  std::this_thread::sleep_for(1s);
  const auto cpu_spent = server_->cpu_time() - cpu_before;
  EXPECT_LT(cpu_spent, 300ms) << "the draining server burns CPU while it waits";
  EXPECT_TRUE(drains_within(4s, false));
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
  EXPECT_NE(server_->err().find("drain timeout: closing 1 connections still open"), std::string::npos)
      << server_->err();
  EXPECT_NE(read_within(fd.get(), 1000ms).find("<closed>"), std::string::npos);
}

// The handler answered without reading (413), and the unread rest is being
// dropped so the connection can serve the next request: the drain gives that
// wait the idle grace, as to a connection between requests, and closes it.
TEST_F(StreamedBody, ADrainClosesAConnectionDroppingAnUnreadBody) {
  UniqueFd fd = connect_loopback(port_);
  ASSERT_TRUE(send_all(fd.get(), "POST /small HTTP/1.1\r\nHost: t\r\nContent-Length: 200000\r\n\r\n" +
                                     pattern_body(89000)));
  std::string buffer;
  const std::string refused = read_response(fd.get(), buffer);
  ASSERT_EQ(refused.rfind("HTTP/1.1 413", 0), 0u) << refused;
  EXPECT_TRUE(drains_within(1500ms)) << "drain_timeout_ms is 3000";
  EXPECT_NE(read_within(fd.get(), 1000ms).find("<closed>"), std::string::npos);
}

// The bound: the server's peak resident set grows by less than 8 MiB while
// a 256 MiB body streams through it (one worker's read buffers, not the body).
TEST_F(StreamedBody, A256MiBUploadKeepsTheServersMemoryFlat) {
  if (binary_is_sanitized()) GTEST_SKIP() << "sanitizers pad and quarantine every allocation; the plain build measures the memory";
  constexpr std::size_t kTotal = 256u << 20;
  const std::string piece = pattern_body(1 << 20);
  const long before = proc_status_kib(server_->pid(), "VmRSS");
  UniqueFd fd = connect_loopback(port_);
  ASSERT_TRUE(send_all(fd.get(), "POST /digest HTTP/1.1\r\nHost: t\r\nContent-Length: " + std::to_string(kTotal) +
                                     "\r\n\r\n"));
  for (std::size_t sent = 0; sent < kTotal; sent += piece.size()) ASSERT_TRUE(send_all(fd.get(), piece));
  std::string buffer;
  const std::string response = read_response(fd.get(), buffer, 60s);
  const long peak = proc_status_kib(server_->pid(), "VmHWM");
  const long after = proc_status_kib(server_->pid(), "VmRSS");
  EXPECT_NE(response.find("\"bytes\":" + std::to_string(kTotal)), std::string::npos) << response;
  std::printf("[ measured ] VmRSS before %ld KiB, after %ld KiB, peak (VmHWM) %ld KiB for a 256 MiB upload\n", before,
              after, peak);
  EXPECT_LT(peak - before, 8 * 1024) << "peak " << peak << " KiB, before " << before << " KiB";
  EXPECT_LT(after - before, 8 * 1024);
}

}  // namespace
}  // namespace tiffany::testing
