// The HTTP server end to end: the real binary, curl and raw sockets.
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "echo_client.hpp"
#include "server_process.hpp"

namespace tiffany::testing {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

// Reads until the peer closes or `timeout` passes.
std::string read_until_close(int fd, std::chrono::milliseconds timeout = 5s) {
  std::string text;
  char buffer[65536];
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;
    const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
    if (n <= 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
  }
  return text;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

class HttpServerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    site_ = std::make_unique<TempDir>();
    const std::string root = site_->path() + "/www";
    fs::create_directories(root + "/sub");
    std::ofstream(root + "/index.html") << "<h1>index</h1>";
    std::ofstream(root + "/hello.txt") << "hello, static world";
    std::ofstream(root + "/sub/index.html") << "sub index";
    std::ofstream(site_->path() + "/outside.txt") << "secret";
    fs::create_symlink(site_->path() + "/outside.txt", root + "/leak.txt");
    std::string big(3 * 1024 * 1024, '\0');
    std::mt19937 rng(3);
    for (char& c : big) c = static_cast<char>(rng());
    std::ofstream(root + "/big.bin", std::ios::binary) << big;
    big_file_ = big;
    page_file_ = big.substr(0, 20 * 1024);  // small enough for the file cache: referenced, not copied
    std::ofstream(root + "/page.bin", std::ios::binary) << page_file_;
    const std::string config = R"({"listeners": [{"name": "web", "address": "127.0.0.1:0", "protocol": "http",
      "limits": {"max_header_bytes": 4096, "max_uri_bytes": 1024, "max_body_bytes": 2097152},
      "routes": [
        {"method": "GET", "path": "/plaintext", "handler": "text", "body": "Hello, World!"},
        {"method": ["POST", "PUT"], "path": "/echo", "handler": "echo"},
        {"method": "GET", "path": "/users/:id", "handler": "json"},
        {"method": "GET", "path": "/health", "handler": "health"},
        {"method": "GET", "path": "/static/*", "handler": "static", "root": ")" +
                               root + R"("}]}]})";
    server_ = std::make_unique<ServerProcess>(config);
    port_ = server_->port_of("web");
    base_ = "http://127.0.0.1:" + std::to_string(port_);
  }
  static void TearDownTestSuite() {
    server_.reset();
    site_.reset();
  }
  // Why: a failure in SetUpTestSuite alone would show up as skipped tests.
  void SetUp() override { ASSERT_GT(port_, 0) << "the server did not start: " << server_->err(); }
  void TearDown() override {
    ASSERT_TRUE(server_->running()) << "the server died: " << server_->err();
  }

  static RunResult curl(std::vector<std::string> args) {
    args.insert(args.begin(), {"-sS", "--max-time", "20"});
    return run_program("curl", args);
  }
  // Sends raw bytes on a fresh connection and returns everything until close.
  static std::string raw(const std::string& bytes) {
    UniqueFd fd = connect_loopback(port_);
    EXPECT_TRUE(fd);
    ::send(fd.get(), bytes.data(), bytes.size(), MSG_NOSIGNAL);
    return read_until_close(fd.get());
  }

  static std::unique_ptr<TempDir> site_;
  static std::unique_ptr<ServerProcess> server_;
  static int port_;
  static std::string base_;
  static std::string big_file_;
  static std::string page_file_;
};

std::unique_ptr<TempDir> HttpServerTest::site_;
std::unique_ptr<ServerProcess> HttpServerTest::server_;
int HttpServerTest::port_ = 0;
std::string HttpServerTest::base_;
std::string HttpServerTest::big_file_;
std::string HttpServerTest::page_file_;

TEST_F(HttpServerTest, CurlReusesTheKeepAliveConnection) {
  const RunResult run = curl({"-v", base_ + "/plaintext", base_ + "/health"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "Hello, World!ok");
  EXPECT_NE(run.err.find("Re-using existing connection"), std::string::npos) << run.err;
}

TEST_F(HttpServerTest, HeadGetsHeadersOnly) {
  const RunResult run = curl({"-I", base_ + "/plaintext"});
  EXPECT_NE(run.out.find("HTTP/1.1 200 OK"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("Content-Length: 13"), std::string::npos);
  EXPECT_EQ(run.out.find("Hello"), std::string::npos);
}

TEST_F(HttpServerTest, PathParametersReachTheHandler) {
  const RunResult run = curl({base_ + "/users/42?x=1"});
  EXPECT_NE(run.out.find(R"("params":{"id":"42"})"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find(R"("query":"x=1")"), std::string::npos) << run.out;
}

TEST_F(HttpServerTest, StaticFilesHonourRangeAndConditionalRequests) {
  const RunResult range = curl({"-r", "0-4", "-w", " %{http_code}", base_ + "/static/hello.txt"});
  EXPECT_EQ(range.out, "hello 206");
  const RunResult head = curl({"-I", base_ + "/static/hello.txt"});
  const auto at = head.out.find("ETag: ");
  ASSERT_NE(at, std::string::npos) << head.out;
  const std::string etag = head.out.substr(at + 6, head.out.find('\r', at) - at - 6);
  const RunResult cached =
      curl({"-o", "/dev/null", "-w", "%{http_code}", "-H", "If-None-Match: " + etag, base_ + "/static/hello.txt"});
  EXPECT_EQ(cached.out, "304");
  EXPECT_EQ(curl({base_ + "/static/sub/"}).out, "sub index");
  EXPECT_EQ(curl({"-o", "/dev/null", "-w", "%{http_code} %{redirect_url}", base_ + "/static/sub"}).out,
            "301 " + base_ + "/static/sub/");
}

TEST_F(HttpServerTest, LargeBodiesTravelBothWays) {
  TempDir dir;
  std::string upload(1536 * 1024, '\0');
  std::mt19937 rng(11);
  for (char& c : upload) c = static_cast<char>(rng());
  const std::string file = dir.write("upload.bin", upload);
  const RunResult echoed = curl({"--data-binary", "@" + file, "-H", "Content-Type: application/x-test",
                                 "-o", dir.path() + "/echoed", base_ + "/echo"});
  EXPECT_EQ(echoed.exit_code, 0) << echoed.err;
  EXPECT_TRUE(read_file(dir.path() + "/echoed") == upload);
  const RunResult chunked = curl({"-H", "Transfer-Encoding: chunked", "--data-binary", "@" + file, "-o",
                                  dir.path() + "/chunked", base_ + "/echo"});
  EXPECT_EQ(chunked.exit_code, 0) << chunked.err;
  EXPECT_TRUE(read_file(dir.path() + "/chunked") == upload);
  const RunResult download = curl({"-o", dir.path() + "/big", base_ + "/static/big.bin"});
  EXPECT_EQ(download.exit_code, 0) << download.err;
  EXPECT_TRUE(read_file(dir.path() + "/big") == big_file_);
}

TEST_F(HttpServerTest, ExpectContinueGetsAnInterimResponse) {
  TempDir dir;
  const std::string file = dir.write("body.txt", std::string(100000, 'c'));
  const RunResult run = curl({"-v", "-H", "Expect: 100-continue", "--data-binary", "@" + file, base_ + "/echo"});
  EXPECT_NE(run.err.find("HTTP/1.1 100 Continue"), std::string::npos) << run.err;
  EXPECT_EQ(run.out.size(), 100000u);
}

TEST_F(HttpServerTest, AnswersPipelinedRequestsInOrderInOneWrite) {
  std::string batch;
  for (int i = 0; i < 16; ++i) batch += "GET /users/" + std::to_string(i) + " HTTP/1.1\r\nHost: t\r\n\r\n";
  UniqueFd fd = connect_loopback(port_);
  ASSERT_TRUE(fd);
  ASSERT_EQ(::send(fd.get(), batch.data(), batch.size(), 0), static_cast<ssize_t>(batch.size()));
  pollfd p{fd.get(), POLLIN, 0};
  ASSERT_EQ(::poll(&p, 1, 5000), 1);
  std::this_thread::sleep_for(50ms);  // let anything sent in further writes arrive too
  char buffer[65536];
  const ssize_t n = ::recv(fd.get(), buffer, sizeof buffer, MSG_DONTWAIT);
  ASSERT_GT(n, 0);
  const std::string first_read(buffer, static_cast<std::size_t>(n));
  EXPECT_EQ(count(first_read, "HTTP/1.1 200 OK"), 16u);
  std::size_t position = 0;
  for (int i = 0; i < 16; ++i) {  // in request order
    const auto at = first_read.find(R"("id":")" + std::to_string(i) + "\"", position);
    ASSERT_NE(at, std::string::npos) << "response " << i << " missing or out of order";
    position = at;
  }
}

TEST_F(HttpServerTest, PipelinedCachedFilesArriveIntactAndInOrder) {
  // Cached files go out by reference, gathered with the heads in one sendmsg.
  std::string batch;
  const std::vector<std::pair<std::string, std::string>> asked = {
      {"", page_file_}, {"Range: bytes=1000-9999\r\n", page_file_.substr(1000, 9000)}, {"", page_file_},
      {"Range: bytes=-1500\r\n", page_file_.substr(page_file_.size() - 1500)}, {"", page_file_}};
  for (const auto& [header, body] : asked) batch += "GET /static/page.bin HTTP/1.1\r\nHost: t\r\n" + header + "\r\n";
  batch += "GET /static/hello.txt HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n";
  std::string reply = raw(batch);
  for (const auto& [header, body] : asked) {
    const auto head_end = reply.find("\r\n\r\n");
    ASSERT_NE(head_end, std::string::npos) << reply.substr(0, 300);
    const std::string head = reply.substr(0, head_end);
    EXPECT_NE(head.find(header.empty() ? "HTTP/1.1 200 OK" : "HTTP/1.1 206 Partial Content"), std::string::npos) << head;
    EXPECT_NE(head.find("Content-Length: " + std::to_string(body.size()) + "\r\n"), std::string::npos) << head;
    ASSERT_GE(reply.size(), head_end + 4 + body.size());
    EXPECT_TRUE(reply.compare(head_end + 4, body.size(), body) == 0) << "a body differs: " << head;
    reply.erase(0, head_end + 4 + body.size());
  }
  EXPECT_TRUE(reply.ends_with("\r\n\r\nhello, static world")) << reply.substr(0, 300);
}

TEST_F(HttpServerTest, PipeliningIsOneWritePerReadBatch) {
  // Same check from the server side: its responses to one batch arrive as one
  // segment, so even a non-waiting reader sees all of them at once.
  std::string batch;
  for (int i = 0; i < 8; ++i) batch += "GET /plaintext HTTP/1.1\r\nHost: t\r\n\r\n";
  UniqueFd fd = connect_loopback(port_);
  ::send(fd.get(), batch.data(), batch.size(), 0);
  pollfd p{fd.get(), POLLIN, 0};
  ASSERT_EQ(::poll(&p, 1, 5000), 1);
  char buffer[65536];
  const ssize_t n = ::recv(fd.get(), buffer, sizeof buffer, 0);
  EXPECT_EQ(count(std::string(buffer, static_cast<std::size_t>(std::max<ssize_t>(n, 0))), "Hello, World!"), 8u);
}

// HTTP/2 is on unless a listener turns it off (this one says nothing): h2c by prior knowledge is
// served, as h2o and Caddy do. (With it off, the preface is a 505: the RFC 9112 conformance row.)
TEST_F(HttpServerTest, SpeaksHttp2ByPriorKnowledgeWithoutBeingAsked) {
  const RunResult got = run_program("curl", {"-sS", "-i", "--http2-prior-knowledge", "--max-time", "5", base_ + "/plaintext"});
  EXPECT_EQ(got.out.rfind("HTTP/2 200", 0), 0u) << got.out << got.err;
  EXPECT_NE(got.out.find("Hello, World!"), std::string::npos) << got.out;
}

struct BadInput {
  const char* name;
  std::string bytes;
  const char* status_line;
};

TEST_F(HttpServerTest, AnswersEveryKindOfBadInputPreciselyAndCloses) {
  const std::vector<BadInput> cases = {
      {"malformed", "GET / HTTP/1.1\r\nHost: t\r\nNo Colon Here\r\n\r\n", "HTTP/1.1 400 Bad Request"},
      {"binary garbage", std::string("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03", 11), "HTTP/1.1 400 Bad Request"},
      {"headers too large", "GET / HTTP/1.1\r\nHost: t\r\nX-Big: " + std::string(8000, 'x') + "\r\n\r\n",
       "HTTP/1.1 431 Request Header Fields Too Large"},
      {"body too large", "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 3000000\r\n\r\n", "HTTP/1.1 413 Content Too Large"},
      {"uri too long", "GET /" + std::string(2000, 'u') + " HTTP/1.1\r\nHost: t\r\n\r\n", "HTTP/1.1 414 URI Too Long"},
      {"unknown method", "BREW /pot HTTP/1.1\r\nHost: t\r\n\r\n", "HTTP/1.1 501 Not Implemented"},
      {"unknown coding", "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", "HTTP/1.1 501 Not Implemented"},
      {"version 3", "GET / HTTP/3.0\r\n\r\n", "HTTP/1.1 505 HTTP Version Not Supported"},
      {"smuggling cl+te",
       "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET / HTTP/1.1\r\nHost: t\r\n\r\n",
       "HTTP/1.1 400 Bad Request"},
      {"smuggling cl+cl", "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 4\r\nContent-Length: 5\r\n\r\nabcde",
       "HTTP/1.1 400 Bad Request"},
  };
  for (const BadInput& bad : cases) {
    const std::string reply = raw(bad.bytes);
    EXPECT_EQ(reply.rfind(bad.status_line, 0), 0u) << bad.name << ": " << reply.substr(0, 80);
    EXPECT_EQ(count(reply, "HTTP/1.1 "), 1u) << bad.name << " (nothing after the error may be served)";
    EXPECT_NE(reply.find("Connection: close"), std::string::npos) << bad.name;
  }
  EXPECT_EQ(curl({base_ + "/plaintext"}).out, "Hello, World!");  // and the server goes on
}

TEST_F(HttpServerTest, AnswersUnknownPathsAndMethods) {
  EXPECT_EQ(curl({"-o", "/dev/null", "-w", "%{http_code}", base_ + "/nowhere"}).out, "404");
  const RunResult wrong = curl({"-i", "-X", "DELETE", base_ + "/plaintext"});
  EXPECT_NE(wrong.out.find("HTTP/1.1 405 Method Not Allowed"), std::string::npos) << wrong.out;
  EXPECT_NE(wrong.out.find("Allow: GET, HEAD"), std::string::npos) << wrong.out;
}

TEST_F(HttpServerTest, StaticFilesNeverEscapeTheRoot) {
  for (const char* target : {"/static/../../etc/passwd", "/static/%2e%2e/%2e%2e/etc/passwd",
                             "/static/..%2f..%2f..%2fetc/passwd", "/static/%2E%2E/outside.txt"}) {
    const std::string reply = raw(std::string("GET ") + target + " HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n");
    EXPECT_EQ(reply.rfind("HTTP/1.1 404", 0), 0u) << target << ": " << reply.substr(0, 60);
    EXPECT_EQ(reply.find("root:"), std::string::npos);
    EXPECT_EQ(reply.find("secret"), std::string::npos);
  }
  const std::string leak = raw("GET /static/leak.txt HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(leak.rfind("HTTP/1.1 403", 0), 0u) << leak.substr(0, 60);
  EXPECT_EQ(leak.find("secret"), std::string::npos);
}

TEST_F(HttpServerTest, Http10ClientsAreAnsweredAndClosed) {
  const std::string reply = raw("GET /plaintext HTTP/1.0\r\n\r\n");
  EXPECT_EQ(reply.rfind("HTTP/1.1 200 OK", 0), 0u);
  EXPECT_NE(reply.find("Connection: close"), std::string::npos);
  EXPECT_TRUE(reply.ends_with("Hello, World!"));
}

}  // namespace
}  // namespace tiffany::testing
