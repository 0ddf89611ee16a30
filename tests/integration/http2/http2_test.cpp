// HTTP/2 end to end: the real binary with `http2` on, driven by curl, nghttp
// and h2load, over h2c (prior knowledge) and h2 over TLS (ALPN).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <poll.h>
#include <sys/socket.h>

#include "integration/echo_client.hpp"
#include "integration/server_process.hpp"
#include "support/test_certificate.hpp"

namespace tiffany::testing {
namespace {

using namespace std::chrono_literals;

std::string random_bytes(std::size_t size, unsigned seed) {
  std::string bytes(size, '\0');
  std::mt19937 rng(seed);
  for (char& c : bytes) c = static_cast<char>(rng());
  return bytes;
}

int port_of(const std::string& base) { return std::stoi(base.substr(base.rfind(':') + 1)); }

std::string read_file(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

class Http2Test : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = std::make_unique<TempDir>();
    cert_ = write_test_certificate(dir_->path(), "site", "localhost", {"localhost"});
    std::filesystem::create_directories(dir_->path() + "/www");
    dir_->write("www/page.txt", std::string(64 * 1024, 'p'));
    big_ = random_bytes(3 * 1024 * 1024 + 17, 7);
    dir_->write("www/big.bin", big_);
    const std::string plugin = under_test(TIFFANY_TEST_PLUGIN_DIR) + "/libh2_probe_plugin.so";
    const std::string routes = R"([
        {"method": "GET", "path": "/plaintext", "handler": "text", "body": "Hello, World!"},
        {"method": "*", "path": "/echo", "handler": "echo"},
        {"method": "GET", "path": "/request", "handler": "json"},
        {"method": "GET", "path": "/wait", "handler": "h2probe.wait"},
        {"method": "GET", "path": "/stream", "handler": "h2probe.stream"},
        {"method": "GET", "path": "/throw", "handler": "h2probe.throw"},
        {"method": "GET", "path": "/canceled", "handler": "h2probe.canceled"},
        {"method": "GET", "path": "/files/*", "handler": "static", "root": ")" + dir_->path() + R"(/www",
         "compress": {"codings": ["gzip"], "min_bytes": 1024, "types": ["text/*"]}}])";
    const std::string common = R"("protocol": "http", "http2": {"enabled": true, "max_concurrent_streams": 100},
        "limits": {"max_body_bytes": 8388608, "max_header_bytes": 16384},
        "timeouts": {"handler_ms": 3000, "write_ms": 2000}, "routes": )" + routes;
    const std::string config = R"({"workers": 1, "plugins": [")" + plugin + R"("],
      "access_log": {"path": ")" + dir_->path() + R"(/access.log"},
      "listeners": [
        {"name": "h2c", "address": "127.0.0.1:0", )" + common + R"(},
        {"name": "h2", "address": "127.0.0.1:0", "tls": {"cert": ")" + cert_.cert_file + R"(", "key": ")" +
                               cert_.key_file + R"("}, )" + common + R"(},
        {"name": "h1only", "address": "127.0.0.1:0", "protocol": "http", "routes": )" + routes + R"(}]})";
    server_ = std::make_unique<ServerProcess>(config);
    clear_ = "http://127.0.0.1:" + std::to_string(server_->port_of("h2c"));
    secure_ = "https://localhost:" + std::to_string(server_->port_of("h2"));
    h1only_ = "http://127.0.0.1:" + std::to_string(server_->port_of("h1only"));
  }
  static void TearDownTestSuite() {
    server_.reset();
    dir_.reset();
  }
  void TearDown() override {
    // Why a request: running() only knows the process was started; a crash shows as a refused connection.
    const RunResult alive = curl({"--http2-prior-knowledge", clear_ + "/plaintext"});
    ASSERT_EQ(alive.out, "Hello, World!") << "the server died: " << server_->err();
  }

  static RunResult curl(std::vector<std::string> args) {
    args.insert(args.begin(), {"-sS", "--max-time", "20", "--cacert", cert_.cert_file});
    return run_program("curl", args);
  }
  static RunResult nghttp(std::vector<std::string> args) {
    args.insert(args.begin(), {"--timeout=20"});
    return run_program("nghttp", args);
  }
  static std::string access_log() { return read_file(dir_->path() + "/access.log"); }

  static inline std::unique_ptr<TempDir> dir_;
  static inline std::unique_ptr<ServerProcess> server_;
  static inline TestCertificate cert_;
  static inline std::string big_;
  static inline std::string clear_, secure_, h1only_;
};

TEST_F(Http2Test, CurlWithPriorKnowledgeGetsHttp2InCleartext) {
  const RunResult run = curl({"-i", "--http2-prior-knowledge", clear_ + "/plaintext"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out.rfind("HTTP/2 200", 0), 0u) << run.out;
  EXPECT_NE(run.out.find("\r\nserver: tiffany\r\n"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("\r\ncontent-length: 13\r\n"), std::string::npos) << run.out;
  EXPECT_EQ(run.out.substr(run.out.size() - 13), "Hello, World!");
}

TEST_F(Http2Test, TlsClientsOfferingH2GetItByAlpnAndOthersStillGetHttp11) {
  const RunResult h2 = curl({"-v", "--http2", secure_ + "/plaintext"});
  ASSERT_EQ(h2.exit_code, 0) << h2.err;
  EXPECT_NE(h2.err.find("ALPN: server accepted h2"), std::string::npos) << h2.err;
  EXPECT_EQ(h2.out, "Hello, World!");
  const RunResult h1 = curl({"-v", "--http1.1", secure_ + "/plaintext"});
  ASSERT_EQ(h1.exit_code, 0) << h1.err;
  EXPECT_NE(h1.err.find("ALPN: server accepted http/1.1"), std::string::npos) << h1.err;
  EXPECT_EQ(h1.out, "Hello, World!");
  // nghttp offers only h2 (and its drafts): refused before, served now.
  const RunResult only_h2 = nghttp({"-v", secure_ + "/plaintext"});
  EXPECT_EQ(only_h2.exit_code, 0) << only_h2.err;
  EXPECT_NE(only_h2.out.find("Hello, World!"), std::string::npos) << only_h2.out;
}

TEST_F(Http2Test, CleartextHttp11StillWorksOnAnHttp2Listener) {
  const RunResult run = curl({"-i", "--http1.1", clear_ + "/plaintext"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out.rfind("HTTP/1.1 200 OK", 0), 0u) << run.out;
  // curl --http2 in cleartext asks to upgrade; we do not offer h2c by Upgrade, so it stays HTTP/1.1.
  const RunResult upgrade = curl({"-i", "--http2", clear_ + "/plaintext"});
  ASSERT_EQ(upgrade.exit_code, 0) << upgrade.err;
  EXPECT_EQ(upgrade.out.rfind("HTTP/1.1 200 OK", 0), 0u) << upgrade.out;
}

TEST_F(Http2Test, APrefaceSentInPiecesStillOpensHttp2) {
  // "PRI" alone could begin an HTTP/1.1 request line: the server reads on until it can tell.
  const UniqueFd socket = connect_loopback(port_of(clear_));
  ASSERT_TRUE(socket.valid());
  ASSERT_EQ(::send(socket.get(), "PRI", 3, MSG_NOSIGNAL), 3);
  std::this_thread::sleep_for(100ms);
  const std::string rest = std::string("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n").substr(3) + std::string("\0\0\0\4\0\0\0\0\0", 9);
  ASSERT_EQ(::send(socket.get(), rest.data(), rest.size(), MSG_NOSIGNAL), static_cast<ssize_t>(rest.size()));
  char head[9] = {};
  pollfd ready{socket.get(), POLLIN, 0};
  ASSERT_EQ(::poll(&ready, 1, 5000), 1);
  ASSERT_EQ(::recv(socket.get(), head, sizeof head, MSG_WAITALL), 9);
  EXPECT_EQ(head[3], 4) << "the server's first frame is its SETTINGS";
}

TEST_F(Http2Test, AnHttp11RequestWhoseFirstBytesLookLikeThePrefaceIsStillServed) {
  // "P" could begin the preface or "POST": the server reads on, then serves HTTP/1.1.
  const UniqueFd socket = connect_loopback(port_of(clear_));
  ASSERT_TRUE(socket.valid());
  ASSERT_EQ(::send(socket.get(), "P", 1, MSG_NOSIGNAL), 1);
  std::this_thread::sleep_for(100ms);
  const std::string rest = "OST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\nConnection: close\r\n\r\nhi";
  ASSERT_EQ(::send(socket.get(), rest.data(), rest.size(), MSG_NOSIGNAL), static_cast<ssize_t>(rest.size()));
  std::string answer;
  char buffer[4096];
  pollfd ready{socket.get(), POLLIN, 0};
  while (::poll(&ready, 1, 5000) == 1) {
    const ssize_t got = ::recv(socket.get(), buffer, sizeof buffer, 0);
    if (got <= 0) break;
    answer.append(buffer, static_cast<std::size_t>(got));
  }
  EXPECT_EQ(answer.rfind("HTTP/1.1 200 OK", 0), 0u) << answer;
  EXPECT_EQ(answer.substr(answer.size() - 2), "hi") << answer;
}

TEST_F(Http2Test, SplitCookieFieldsReachTheHandlerJoined) {
  const RunResult run = nghttp({"-H", "cookie: a=1", "-H", "cookie: b=2", clear_ + "/request"});
  EXPECT_NE(run.out.find("\"cookie\":\"a=1; b=2\""), std::string::npos) << run.out;
}

TEST_F(Http2Test, AHostThatDisagreesWithAuthorityIs400) {
  const RunResult run = nghttp({"-v", "-H", "host: elsewhere.test", clear_ + "/plaintext"});
  EXPECT_NE(run.out.find(":status: 400"), std::string::npos) << run.out;
}

TEST_F(Http2Test, AFastStreamedResponseToASlowReaderHoldsABoundedBuffer) {
  // 48 MiB written as fast as the handler can, read by a client limited to
  // 40 MB/s: the server holds a window's worth, not what the client has not read.
  auto rss = [] {
    std::ifstream status("/proc/" + std::to_string(server_->pid()) + "/status");
    std::string line;
    while (std::getline(status, line)) {
      if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6)) * 1024;
    }
    return 0L;
  };
  const long before = rss();
  long peak = before;
  RunResult run;
  std::thread client([&] {
    run = curl({"--http2-prior-knowledge", "--limit-rate", "40M", "-o", "/dev/null", "-w", "%{size_download}",
                clear_ + "/stream?pieces=768&size=65536"});
  });
  for (int i = 0; i < 30; ++i) {
    std::this_thread::sleep_for(50ms);
    peak = std::max(peak, rss());
  }
  client.join();
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, std::to_string(768 * 65536));
  EXPECT_LT(peak - before, 16L * 1024 * 1024) << "the server grew by " << (peak - before) << " bytes";
}

TEST_F(Http2Test, UploadsOfEverySizeUpToTheLimitAreEchoedWhole) {
  TempDir dir;
  for (const std::size_t size : {std::size_t{0}, std::size_t{1}, std::size_t{65535}, std::size_t{65536},
                                 std::size_t{3 * 1024 * 1024}}) {
    const std::string upload = random_bytes(size, static_cast<unsigned>(size));
    const std::string file = dir.write("upload.bin", upload);
    for (const std::string& base : {clear_, secure_}) {
      const std::string version = base == clear_ ? "--http2-prior-knowledge" : "--http2";
      const RunResult run = curl({version, "--data-binary", "@" + file, "-o",
                                  dir.path() + "/echoed", "-w", "%{http_code} %{http_version}", base + "/echo"});
      ASSERT_EQ(run.exit_code, 0) << base << " " << size << ": " << run.err;
      EXPECT_EQ(run.out, "200 2") << base << " " << size;
      EXPECT_TRUE(read_file(dir.path() + "/echoed") == upload) << base << " " << size;
    }
  }
}

TEST_F(Http2Test, ConcurrentUploadsOnOneConnectionAllComplete) {
  // Four 400 KiB bodies at once pass the connection's 1 MiB body budget: the
  // oldest always gets its window back, so each finishes in turn.
  TempDir dir;
  const std::string file = dir.write("upload.bin", random_bytes(400 * 1024, 3));
  const RunResult run = run_program("h2load", {"-n", "4", "-c", "1", "-m", "4", "-d", file, clear_ + "/echo"});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("4 succeeded, 0 failed"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("4 2xx"), std::string::npos) << run.out;
}

TEST_F(Http2Test, ABodyOverTheLimitIsAnswered413AndTheStreamEnded) {
  TempDir dir;
  const std::string file = dir.write("upload.bin", random_bytes(9 * 1024 * 1024, 5));
  const RunResult run = nghttp({"-v", "-d", file, clear_ + "/echo"});
  EXPECT_NE(run.out.find(":status: 413"), std::string::npos) << run.out;
  // RFC 9113 §8.1: answered before the request ended, the stream is reset with NO_ERROR.
  EXPECT_NE(run.out.find("recv RST_STREAM frame"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("error_code=NO_ERROR"), std::string::npos) << run.out;
}

TEST_F(Http2Test, AHeaderListOverTheLimitIsAnswered431) {
  const RunResult run = nghttp({"-v", "-H", "x-big: " + std::string(20000, 'b'), clear_ + "/plaintext"});
  EXPECT_NE(run.out.find(":status: 431"), std::string::npos) << run.out;
}

TEST_F(Http2Test, ManyConcurrentStreamsOnFewConnectionsAllSucceed) {
  for (const std::string& base : {clear_, secure_}) {
    const RunResult run = run_program("h2load", {"-n", "4000", "-c", "4", "-m", "64", base + "/plaintext"});
    ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
    EXPECT_NE(run.out.find("4000 succeeded, 0 failed, 0 errored"), std::string::npos) << base << run.out;
  }
}

TEST_F(Http2Test, StaticFilesServeRangesAndCompressionOverHttp2) {
  TempDir dir;
  const RunResult whole = curl({"--http2-prior-knowledge", "-o", dir.path() + "/big", clear_ + "/files/big.bin"});
  ASSERT_EQ(whole.exit_code, 0) << whole.err;
  EXPECT_TRUE(read_file(dir.path() + "/big") == big_);
  const RunResult range = curl({"-i", "--http2", "-r", "10-19", secure_ + "/files/big.bin"});
  ASSERT_EQ(range.exit_code, 0) << range.err;
  EXPECT_EQ(range.out.rfind("HTTP/2 206", 0), 0u) << range.out;
  EXPECT_NE(range.out.find("content-range: bytes 10-19/"), std::string::npos) << range.out;
  EXPECT_EQ(range.out.substr(range.out.size() - 10), big_.substr(10, 10));
  const RunResult gzip = curl({"-i", "--http2-prior-knowledge", "--compressed", clear_ + "/files/page.txt"});
  ASSERT_EQ(gzip.exit_code, 0) << gzip.err;
  EXPECT_NE(gzip.out.find("content-encoding: gzip"), std::string::npos) << gzip.out.substr(0, 400);
  EXPECT_NE(gzip.out.find(std::string(64 * 1024, 'p')), std::string::npos);  // decoded by curl
}

TEST_F(Http2Test, AStreamedResponseLargerThanTheWindowArrivesWhole) {
  // 64 pieces of 64 KiB: far past the 64 KiB stream window and the
  // stream's 256 KiB of pending output, so the handler waits on flow control.
  TempDir dir;
  const RunResult run = curl({"--http2-prior-knowledge", "-o", dir.path() + "/streamed", "-w", "%{size_download}",
                              clear_ + "/stream?pieces=64&size=65536"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, std::to_string(64 * 65536));
}

TEST_F(Http2Test, AHandlerThatThrowsGets500AndOtherStreamsGoOn) {
  const RunResult run = nghttp({"-v", clear_ + "/throw", clear_ + "/plaintext"});
  EXPECT_NE(run.out.find(":status: 500"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find(":status: 200"), std::string::npos) << run.out;
}

TEST_F(Http2Test, AHandlerPastItsTimeoutGets503) {
  const RunResult run = curl({"-i", "--http2-prior-knowledge", clear_ + "/wait?ms=10000"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out.rfind("HTTP/2 503", 0), 0u) << run.out;
}

TEST_F(Http2Test, StreamsRunConcurrentlyOnOneConnection) {
  // Ten handlers that each wait 500 ms, on one connection: together, not one after another.
  const auto started = std::chrono::steady_clock::now();
  const RunResult run = run_program("h2load", {"-n", "10", "-c", "1", "-m", "10", clear_ + "/wait?ms=500"});
  const auto took = std::chrono::steady_clock::now() - started;
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("10 succeeded"), std::string::npos) << run.out;
  EXPECT_LT(took, 4s);
}

TEST_F(Http2Test, TheAccessLogSaysHttp20) {
  const RunResult run = curl({"--http2-prior-knowledge", clear_ + "/request?logged=h2"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  // The line is written when the buffer flushes (at most a second later).
  std::string log;
  for (int i = 0; i < 40 && log.find("/request?logged=h2 HTTP/2.0\" 200") == std::string::npos; ++i) {
    std::this_thread::sleep_for(100ms);
    log = access_log();
  }
  EXPECT_NE(log.find("\"GET /request?logged=h2 HTTP/2.0\" 200"), std::string::npos) << log;
}

TEST_F(Http2Test, RequestFieldsReachTheHandlerAsHttp11Ones) {
  const RunResult run = curl({"--http2-prior-knowledge", "-H", "X-Probe: one", clear_ + "/request?q=1"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("\"method\":\"GET\""), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("\"path\":\"\\/request\""), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("x-probe"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("\"Host\":\"127.0.0.1:"), std::string::npos) << run.out;  // :authority became Host
}

// Two GETs one after the other on one h2c connection (python3-h2), the first with a field and a
// cookie; prints each answer's body on a line. (curl 7.88's --next cannot reuse an h2c connection.)
constexpr const char* kTwoRequests = R"(
import socket, sys, h2.connection, h2.config, h2.events
sock = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10)
conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
conn.initiate_connection()
sock.sendall(conn.data_to_send())
def get(stream_id, path, extra):
    conn.send_headers(stream_id, [(":method", "GET"), (":scheme", "http"), (":path", path), (":authority", "t")] + extra,
                      end_stream=True)
    sock.sendall(conn.data_to_send())
    body = b""
    while True:
        data = sock.recv(65536)
        if not data:
            sys.exit("closed")
        for event in conn.receive_data(data):
            if isinstance(event, h2.events.DataReceived) and event.stream_id == stream_id:
                body += event.data
            if isinstance(event, h2.events.StreamEnded) and event.stream_id == stream_id:
                sock.sendall(conn.data_to_send())
                return body.decode()
        sock.sendall(conn.data_to_send())
print(get(1, "/request?first=1", [("x-probe", "first"), ("cookie", "a=1")]))
print(get(3, "/request?second=2", []))
)";

// Finished streams are reused (StreamPool): a request served by one must see nothing of the last.
TEST_F(Http2Test, ARequestOnAReusedStreamSeesNothingOfTheLast) {
  const RunResult run = run_program("/usr/bin/python3", {"-c", kTwoRequests, std::to_string(port_of(clear_))}, 30s);
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const std::size_t newline = run.out.find('\n');
  ASSERT_NE(newline, std::string::npos) << run.out;
  const std::string first = run.out.substr(0, newline);
  const std::string second = run.out.substr(newline + 1);
  EXPECT_NE(first.find("x-probe"), std::string::npos) << first;
  EXPECT_NE(first.find("a=1"), std::string::npos) << first;
  EXPECT_NE(second.find("second=2"), std::string::npos) << second;
  EXPECT_EQ(second.find("x-probe"), std::string::npos) << second;
  EXPECT_EQ(second.find("a=1"), std::string::npos) << second;
  EXPECT_EQ(second.find("first"), std::string::npos) << second;
}

}  // namespace
}  // namespace tiffany::testing

namespace tiffany::testing {
namespace {

// HTTP/2 need not state a body's length; the proxy still forwards the body whole.
TEST(Http2Proxy, AnUploadWithoutContentLengthReachesTheUpstreamWhole) {
  ServerProcess upstream(R"({"workers": 1, "listeners": [{"name": "up", "address": "127.0.0.1:0", "protocol": "http",
      "routes": [{"method": "*", "path": "/echo", "handler": "echo"}]}]})");
  const int upstream_port = upstream.port_of("up");
  ServerProcess front(R"({"workers": 1, "upstreams": {"app": {"servers": ["127.0.0.1:)" + std::to_string(upstream_port) +
                      R"("]}}, "listeners": [{"name": "front", "address": "127.0.0.1:0", "protocol": "http",
      "http2": {"enabled": true},
      "routes": [{"method": "*", "path": "/echo", "handler": "proxy", "with": {"upstream": "app"}}]}]})");
  const std::string body = random_bytes(200 * 1024, 9);
  // `-T -` streams standard input: over HTTP/2, DATA frames and no content-length.
  const RunResult run = run_program_with_input(
      "curl", {"-sS", "--max-time", "20", "--http2-prior-knowledge", "-T", "-", "-v",
               "http://127.0.0.1:" + std::to_string(front.port_of("front")) + "/echo"},
      body);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.err.find("> content-length:"), std::string::npos) << "the request was to carry no length: " << run.err;
  EXPECT_TRUE(run.out == body) << run.out.size() << " bytes came back";
}

}  // namespace
}  // namespace tiffany::testing
