// Streaming request bodies over HTTP/2: the upload_digest example plugin in the real binary reads
// each body as its DATA frames arrive (curl, and h2_frames_client.py for what curl cannot send).
#include <gtest/gtest.h>

#include <charconv>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "integration/server_process.hpp"
#include "support/upload_digest_check.hpp"

namespace tiffany::testing {
namespace {

using namespace std::chrono_literals;

const std::string kDriver = std::string(TIFFANY_SOURCE_DIR) + "/tests/integration/http2/h2_frames_client.py";
// Why this interpreter: Debian's python3-h2 belongs to it; `python3` on PATH may be another.
const std::string kPython = "/usr/bin/python3";

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

class Http2StreamedBody : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = std::make_unique<TempDir>();
    const std::string plugin = under_test(TIFFANY_PLUGIN_DIR) + "/libupload_digest.so";
    const std::string config = R"({"workers": 1, "drain_timeout_ms": 3000, "plugins": [")" + plugin + R"("],
      "listeners": [{"name": "web", "address": "127.0.0.1:0", "protocol": "http", "http2": {"enabled": true},
        "limits": {"max_body_bytes": 1073741824},
        "routes": [
          {"method": "POST", "path": "/digest", "handler": "upload_digest.digest"},
          {"method": "POST", "path": "/small", "handler": "upload_digest.digest", "max_bytes": 1000},
          {"method": "POST", "path": "/slow", "handler": "upload_digest.digest", "first_read_delay_ms": 600},
          {"method": "POST", "path": "/whole", "handler": "echo"},
          {"method": "GET", "path": "/plaintext", "handler": "text", "body": "after"}]},
        {"name": "tight", "address": "127.0.0.1:0", "protocol": "http", "http2": {"enabled": true},
         "limits": {"max_body_bytes": 65536},
         "routes": [{"method": "POST", "path": "/digest", "handler": "upload_digest.digest"}]},
        {"name": "impatient", "address": "127.0.0.1:0", "protocol": "http", "http2": {"enabled": true},
         "timeouts": {"body_ms": 300},
         "routes": [{"method": "POST", "path": "/digest", "handler": "upload_digest.digest"},
                    {"method": "GET", "path": "/plaintext", "handler": "text", "body": "after"}]}]})";
    server_ = std::make_unique<ServerProcess>(config);
    const auto base = [](int port) { return "http://127.0.0.1:" + std::to_string(port); };
    web_ = base(server_->port_of("web"));
    tight_ = base(server_->port_of("tight"));
  }
  static void TearDownTestSuite() {
    server_.reset();
    dir_.reset();
  }
  void TearDown() override {
    // Why a request: running() only knows the process was started; a crash shows as a refused connection.
    ASSERT_EQ(curl({"--http2-prior-knowledge", web_ + "/plaintext"}).out, "after") << server_->err();
  }

  static RunResult curl(std::vector<std::string> args) {
    args.insert(args.begin(), {"-sS", "--max-time", "30"});
    return run_program("curl", args, 60s);
  }
  /// Runs one scenario of h2_frames_client.py against `port`; returns its JSON (failing the test if it did not run).
  static std::string drive(int port, std::vector<std::string> scenario) {
    std::vector<std::string> args{kDriver, "--port", std::to_string(port), "--path", "/plaintext"};
    args.insert(args.end(), scenario.begin(), scenario.end());
    const RunResult run = run_program(kPython, args, 60s);
    EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
    return run.out;
  }
  /// Writes `body` to a file for curl's --data-binary @file.
  static std::string body_file(const std::string& name, const std::string& body) {
    const std::string path = dir_->path() + "/" + name;
    std::ofstream(path, std::ios::binary) << body;
    return path;
  }

  static inline std::unique_ptr<TempDir> dir_;
  static inline std::unique_ptr<ServerProcess> server_;
  static inline std::string web_, tight_;
};

TEST_F(Http2StreamedBody, ASizedUploadReachesTheHandlerInPiecesAsItArrives) {
  const std::string body = pattern_body(300 * 1000);
  const RunResult run =
      curl({"--http2-prior-knowledge", "--data-binary", "@" + body_file("sized", body), web_ + "/digest"});
  EXPECT_TRUE(has(run.out, digest_json(body.size(), body))) << run.out << run.err;
  EXPECT_TRUE(has(run.out, "\"streamed\":true")) << run.out;
  EXPECT_FALSE(has(run.out, "\"pieces\":1,")) << "300 KB arrived as one piece: " << run.out;
}

TEST_F(Http2StreamedBody, AnUploadWithoutALengthIsStreamedWhole) {
  // An empty Content-Length removes curl's: over HTTP/2 the body then just ends with END_STREAM.
  const std::string body = pattern_body(200 * 1000);
  const RunResult run = curl({"--http2-prior-knowledge", "-H", "Content-Length:", "--data-binary",
                              "@" + body_file("unsized", body), web_ + "/digest"});
  EXPECT_TRUE(has(run.out, digest_json(body.size(), body))) << run.out << run.err;
  EXPECT_TRUE(has(run.out, "\"streamed\":true")) << run.out;
}

TEST_F(Http2StreamedBody, ContinueIsSentOnlyWhenTheHandlerStartsReading) {
  const std::string body = pattern_body(100 * 1000);
  const auto started = std::chrono::steady_clock::now();
  const RunResult run = curl({"-v", "--http2-prior-knowledge", "-H", "Expect: 100-continue", "--expect100-timeout",
                              "10", "--data-binary", "@" + body_file("invited", body), web_ + "/slow"});
  const auto took = std::chrono::steady_clock::now() - started;
  EXPECT_TRUE(has(run.err, "< HTTP/2 100")) << run.err;
  EXPECT_TRUE(has(run.out, digest_json(body.size(), body))) << run.out << run.err;
  // The handler works 600 ms before its first read, and only that read invites the body.
  EXPECT_GE(took, 600ms);
}

// Why the driver, not curl: curl 7.88 takes the RST_STREAM(NO_ERROR) that follows an early
// answer (RFC 9113 §8.1: the server stops the upload so) for an empty reply.
TEST_F(Http2StreamedBody, AHandlerAnsweringWithoutReadingNeverInvitesTheBody) {
  const std::string json = drive(server_->port_of("web"), {"--post-path", "/small", "--header", "expect:100-continue",
                                                           "post", "300000"});
  EXPECT_TRUE(has(json, R"("status_counts": {"413": 1})")) << json;
  EXPECT_FALSE(has(json, "\"interim\"")) << "a 100 went to a body nobody reads: " << json;
  EXPECT_TRUE(has(json, R"("rst_streams": {"1": "NO_ERROR"})")) << json;
}

TEST_F(Http2StreamedBody, AWholeBodyRouteAnswersContinueAtOnce) {
  // A route that does not stream reads the body whole before its handler runs: no reason to wait.
  const std::string body = pattern_body(50 * 1000);
  const RunResult run = curl({"-v", "--http2-prior-knowledge", "-H", "Expect: 100-continue", "--expect100-timeout",
                              "10", "--data-binary", "@" + body_file("whole", body), web_ + "/whole"});
  EXPECT_TRUE(has(run.err, "< HTTP/2 100")) << run.err;
  EXPECT_EQ(run.out, body);
}

TEST_F(Http2StreamedBody, ABodyPastTheLimitMidStreamIs413AndTheStreamEnds) {
  // No content-length, so only the bytes tell: the handler's read says too_large and the answer is 413;
  // the client is stopped at its window (64 KiB past the limit at most), then by the reset.
  const std::string json =
      drive(server_->port_of("tight"), {"--post-path", "/digest", "--no-length", "post", "300000"});
  EXPECT_TRUE(has(json, R"("status_counts": {"413": 1})")) << json;
  EXPECT_TRUE(has(json, R"("rst_streams": {"1": "NO_ERROR"})")) << json;
  const std::size_t at = json.find("\"sent\": ");
  ASSERT_NE(at, std::string::npos) << json;
  EXPECT_LE(std::stoi(json.substr(at + 8)), 65536 + 65535) << json;
}

TEST_F(Http2StreamedBody, ConcurrentStreamedUploadsOnOneConnectionAllComplete) {
  const std::string json =
      drive(server_->port_of("web"), {"--post-path", "/digest", "--wait", "20", "post_concurrent", "6", "400000"});
  EXPECT_TRUE(has(json, R"("status_counts": {"200": 6})")) << json;
}

TEST_F(Http2StreamedBody, AStalledStreamedBodyGets408AtTheBodyTimeout) {
  const std::string json =
      drive(server_->port_of("impatient"), {"--post-path", "/digest", "--wait", "5", "stalled_post", "1000"});
  EXPECT_TRUE(has(json, R"("status_counts": {"408": 1})")) << json;
  // body_ms is 300: answered about then, and a new connection is served at once after.
  const std::size_t at = json.find("\"answered_ms\": ");
  ASSERT_NE(at, std::string::npos) << json;
  const int answered = std::stoi(json.substr(at + 15));
  EXPECT_GE(answered, 250) << json;
  EXPECT_LT(answered, 3000) << json;
  EXPECT_TRUE(has(json, R"("after": {"status": 200)")) << json;
}

// The bound: the server's peak resident set grows by less than 8 MiB while a
// 128 MiB body streams through it (the stream's window, not the body).
TEST_F(Http2StreamedBody, A128MiBUploadKeepsTheServersMemoryFlat) {
  if (binary_is_sanitized()) GTEST_SKIP() << "sanitizers pad and quarantine every allocation; the plain build measures the memory";
  constexpr std::size_t kTotal = 128u << 20;
  const std::string path = dir_->path() + "/big";
  {
    std::ofstream file(path, std::ios::binary);
    const std::string piece = pattern_body(1 << 20);
    for (std::size_t written = 0; written < kTotal; written += piece.size()) file << piece;
  }
  const long before = proc_status_kib(server_->pid(), "VmRSS");
  const RunResult run = curl({"--http2-prior-knowledge", "--data-binary", "@" + path, web_ + "/digest"});
  const long peak = proc_status_kib(server_->pid(), "VmHWM");
  EXPECT_TRUE(has(run.out, "\"bytes\":" + std::to_string(kTotal))) << run.out << run.err;
  std::printf("[ measured ] VmRSS before %ld KiB, peak (VmHWM) %ld KiB for a 128 MiB upload over h2c\n", before, peak);
  EXPECT_LT(peak - before, 8 * 1024) << "peak " << peak << " KiB, before " << before << " KiB";
}

}  // namespace
}  // namespace tiffany::testing
