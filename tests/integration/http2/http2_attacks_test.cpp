// HTTP/2 under attack and at the edges of its lifecycle: raw frames from
// h2_frames_client.py (Python's h2) against the real binary. Each attack
// test checks the server's answer (RFC 9113 error codes, GOAWAY
// ENHANCE_YOUR_CALM) and that a new connection is still served at once
// after it ("after": 200), and the floods that the server absorbs also
// bound the CPU they cost it.
#include <signal.h>

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "integration/prometheus_text.hpp"
#include "integration/server_process.hpp"
#include "support/test_certificate.hpp"

namespace tiffany::testing {
namespace {

using namespace std::chrono_literals;

const std::string kDriver = std::string(TIFFANY_SOURCE_DIR) + "/tests/integration/http2/h2_frames_client.py";
// Why this interpreter: Debian's python3-h2 belongs to it; `python3` on PATH may be another.
const std::string kPython = "/usr/bin/python3";

constexpr int kKeepAliveMs = 1500;

std::string config_for(const std::string& plugin, const std::string& cert, const std::string& key) {
  const std::string listener = R"("protocol": "http", "http2": {"enabled": true, "max_concurrent_streams": 128},
      "timeouts": {"write_ms": 1000, "keepalive_ms": )" + std::to_string(kKeepAliveMs) + R"(, "handler_ms": 10000},
      "limits": {"max_body_bytes": 8388608},
      "routes": [{"method": "GET", "path": "/plaintext", "handler": "text", "body": "Hello"},
                 {"method": "GET", "path": "/metrics", "handler": "metrics"},
                 {"method": "*", "path": "/echo", "handler": "echo"},
                 {"method": "GET", "path": "/wait", "handler": "h2probe.wait"},
                 {"method": "GET", "path": "/canceled", "handler": "h2probe.canceled"},
                 {"method": "GET", "path": "/stream", "handler": "h2probe.stream"}])";
  return R"({"workers": 1, "drain_timeout_ms": 5000, "plugins": [")" + plugin + R"("], "listeners": [
      {"name": "h2c", "address": "127.0.0.1:0", )" + listener + R"(},
      {"name": "h2", "address": "127.0.0.1:0", "tls": {"cert": ")" + cert + R"(", "key": ")" + key + R"("}, )" +
         listener + R"(}]})";
}

class Http2AttacksTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = std::make_unique<TempDir>();
    cert_ = write_test_certificate(dir_->path(), "site", "localhost", {"localhost"});
    server_ = std::make_unique<ServerProcess>(config_for(plugin(), cert_.cert_file, cert_.key_file));
    clear_port_ = server_->port_of("h2c");
    tls_port_ = server_->port_of("h2");
  }
  static void TearDownTestSuite() {
    server_.reset();
    dir_.reset();
  }
  void TearDown() override {
    // Why a request: running() only knows the process was started; a crash shows as a refused connection.
    const RunResult alive = run_program("curl", {"-sS", "--max-time", "10", "--http2-prior-knowledge",
                                                 "http://127.0.0.1:" + std::to_string(clear_port_) + "/plaintext"});
    ASSERT_EQ(alive.out, "Hello") << "the server died: " << server_->err();
  }

  static std::string plugin() { return under_test(TIFFANY_TEST_PLUGIN_DIR) + "/libh2_probe_plugin.so"; }

  /// Runs one scenario of the driver; returns its JSON (and fails the test if it did not run).
  static std::string drive(int port, std::vector<std::string> scenario, bool tls = false) {
    std::vector<std::string> args{kDriver, "--port", std::to_string(port), "--path", "/plaintext",
                                  "--large-path", "/stream?pieces=256&size=65536", "--wait", "5"};
    if (tls) args.push_back("--tls");
    args.insert(args.end(), scenario.begin(), scenario.end());
    const RunResult run = run_program(kPython, args, 60s);
    EXPECT_EQ(run.exit_code, 0) << run.err;
    EXPECT_EQ(run.out.rfind("{", 0), 0u) << run.out << run.err;
    return run.out;
  }
  static bool has(const std::string& json, const std::string& part) { return json.find(part) != std::string::npos; }
  static constexpr const char* kServedAfter = "\"after\": {\"status\": 200";

  static inline std::unique_ptr<TempDir> dir_;
  static inline std::unique_ptr<ServerProcess> server_;
  static inline TestCertificate cert_;
  static inline int clear_port_ = 0, tls_port_ = 0;
};

TEST_F(Http2AttacksTest, RapidResetEndsTheConnectionWithEnhanceYourCalm) {
  for (const bool tls : {false, true}) {
    const std::string json = drive(tls ? tls_port_ : clear_port_, {"rapid_reset", "2000"}, tls);
    EXPECT_TRUE(has(json, "\"goaway\": {\"error\": \"ENHANCE_YOUR_CALM\"")) << json;
    EXPECT_TRUE(has(json, kServedAfter)) << json;
  }
}

TEST_F(Http2AttacksTest, AContinuationFloodIsCutOff) {
  const std::string json = drive(clear_port_, {"continuation_flood", "1000"});
  EXPECT_TRUE(has(json, "\"goaway\": {\"error\": \"ENHANCE_YOUR_CALM\"")) << json;
  EXPECT_TRUE(has(json, "\"closed_by_server\": true")) << json;
  EXPECT_TRUE(has(json, kServedAfter)) << json;
}

TEST_F(Http2AttacksTest, AnHpackBombIsAnswered431) {
  const std::string json = drive(clear_port_, {"hpack_bomb"});
  EXPECT_TRUE(has(json, "\"status_counts\": {\"431\": 1}")) << json;
  EXPECT_TRUE(has(json, kServedAfter)) << json;
}

TEST_F(Http2AttacksTest, FloodsOfAcknowledgedFramesFromAClientThatDoesNotReadAreCut) {
  const std::string json = drive(clear_port_, {"settings_flood", "20000"});
  EXPECT_TRUE(has(json, "\"goaway\": {\"error\": \"ENHANCE_YOUR_CALM\"")) << json;
  EXPECT_TRUE(has(json, kServedAfter)) << json;
}

TEST_F(Http2AttacksTest, EmptyDataFramesPastTheLimitEndTheConnection) {
  const std::string json = drive(clear_port_, {"empty_data_flood", "5000"});
  EXPECT_TRUE(has(json, "\"goaway\": {\"error\": \"ENHANCE_YOUR_CALM\"")) << json;
  EXPECT_TRUE(has(json, kServedAfter)) << json;
}

TEST_F(Http2AttacksTest, CheapFloodsCostBoundedCpuAndTheServerStaysResponsive) {
  // PING (answered), PRIORITY and WINDOW_UPDATE frames: 20,000 each. The
  // bound is generous (the work is a few microseconds a frame); what it
  // catches is a per-frame cost that grows with the flood.
  for (const char* flood : {"ping_flood", "priority_flood", "window_update_flood"}) {
    const auto before = server_->cpu_time();
    const std::string json = drive(clear_port_, {flood, "20000"});
    const auto spent = server_->cpu_time() - before;
    EXPECT_TRUE(has(json, kServedAfter)) << flood << ": " << json;
    EXPECT_LT(spent, 2000ms) << flood;
  }
}

TEST_F(Http2AttacksTest, AStreamStalledOnAZeroWindowIsResetAfterTheWriteTimeout) {
  const std::string json = drive(clear_port_, {"zero_window"});
  EXPECT_TRUE(has(json, "\"rst_streams\": {\"1\": \"CANCEL\"}")) << json;
  EXPECT_TRUE(has(json, kServedAfter)) << json;
}

TEST_F(Http2AttacksTest, AClientThatNeverReadsIsDisconnected) {
  const std::string json = drive(clear_port_, {"never_read"});
  EXPECT_TRUE(has(json, "\"closed_by_server\": true")) << json;
  EXPECT_TRUE(has(json, kServedAfter)) << json;
}

TEST_F(Http2AttacksTest, StreamIdsUpToTheLastAreServed) {
  const std::string json = drive(clear_port_, {"stream_id_exhaustion"});
  EXPECT_TRUE(has(json, "\"2147483647\": {\"status\": 200")) << json;
  EXPECT_TRUE(has(json, kServedAfter)) << json;
}

TEST_F(Http2AttacksTest, ProtocolErrorsGetTheirRfc9113Codes) {
  for (const char* scenario : {"bad_frames", "bad_preface"}) {
    const std::string json = drive(clear_port_, {scenario});
    EXPECT_TRUE(has(json, kServedAfter)) << json;
    EXPECT_TRUE(has(json, "\"matches\": true")) << json;
    // Every case, header blocks on closed or older streams and streams that
    // depend on themselves (even with RFC 7540 priorities off) included.
    EXPECT_FALSE(has(json, "\"matches\": false")) << json;
  }
}

TEST_F(Http2AttacksTest, UploadsPastTheConnectionsBodyBudgetAllFinish) {
  // 3 MiB on one stream, then four 400 KiB at once: each past the 1 MiB the
  // connection holds before it holds windows back (the oldest always goes on).
  const std::string one = drive(clear_port_, {"post", "3145728"});
  EXPECT_TRUE(has(one, "\"echoed_length\": 3145728")) << one;
  const std::string four = drive(tls_port_, {"post_concurrent", "4", "409600"}, true);
  EXPECT_TRUE(has(four, "\"status_counts\": {\"200\": 4}")) << four;
}

TEST_F(Http2AttacksTest, MetricsCountStreamsResetsGoawaysAndStalls) {
  const auto before = parse_prometheus(get(clear_port_, "/metrics"));
  (void)drive(clear_port_, {"rapid_reset", "500"});
  (void)drive(clear_port_, {"zero_window"});
  const auto after = parse_prometheus(get(clear_port_, "/metrics"));
  auto grew = [&](const std::string& sample) {
    const auto was = before.find(sample);
    const auto now = after.find(sample);
    EXPECT_NE(now, after.end()) << sample << " is missing";
    if (now == after.end()) return 0.0;
    return now->second - (was == before.end() ? 0.0 : was->second);
  };
  EXPECT_GE(grew(R"(tiffany_http2_connections_total{listener="h2c"})"), 2);
  EXPECT_GE(grew(R"(tiffany_http2_streams_total{listener="h2c"})"), 200);
  EXPECT_GE(grew(R"(tiffany_http2_resets_total{listener="h2c",direction="received"})"), 200);
  EXPECT_GE(grew(R"(tiffany_http2_resets_total{listener="h2c",direction="sent"})"), 1);  // the stalled stream's CANCEL
  EXPECT_GE(grew(R"(tiffany_http2_goaways_sent_total{listener="h2c",code="ENHANCE_YOUR_CALM"})"), 1);
  EXPECT_GE(grew(R"(tiffany_http2_flow_control_stalls_total{listener="h2c"})"), 1);
}

// A client reset of a stream whose handler runs cancels the handler, and
// the stream is forgotten: the connection, idle again, closes at keepalive_ms.
TEST_F(Http2AttacksTest, AResetStreamCancelsItsHandlerAndIsForgotten) {
  const std::string script = R"(
import json, socket, sys, time, h2.connection, h2.events
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.settimeout(6)
c = h2.connection.H2Connection()
c.initiate_connection()
c.send_headers(1, [(":method", "GET"), (":path", "/wait?ms=8000"), (":scheme", "http"), (":authority", "t")], end_stream=True)
s.sendall(c.data_to_send())
time.sleep(0.5)
c.reset_stream(1)
s.sendall(c.data_to_send())
reset_at = time.monotonic()
seen = {}
try:
    while True:
        data = s.recv(65536)
        if not data:
            seen["closed_ms"] = round((time.monotonic() - reset_at) * 1000)
            break
        for event in c.receive_data(data):
            if isinstance(event, h2.events.ConnectionTerminated):
                seen["goaway_code"] = int(event.error_code)
except socket.timeout:
    seen["timeout"] = True
print(json.dumps(seen))
)";
  const auto canceled = [] {
    const RunResult run = run_program(
        "curl", {"-sS", "--http2-prior-knowledge", "http://127.0.0.1:" + std::to_string(clear_port_) + "/canceled"});
    return std::stoi(run.out);
  };
  const int canceled_before = canceled();
  const RunResult reset = run_program(kPython, {"-c", script, std::to_string(clear_port_)}, 20s);
  ASSERT_EQ(reset.exit_code, 0) << reset.err;
  EXPECT_EQ(canceled(), canceled_before + 1);
  // keepalive_ms is 1500: the connection closes with GOAWAY(NO_ERROR) then, not at the client's leisure.
  EXPECT_NE(reset.out.find("\"goaway_code\": 0"), std::string::npos) << reset.out;
  EXPECT_EQ(reset.out.find("timeout"), std::string::npos) << reset.out;
}

// Streams nghttp2 resets for the client's errors count toward Rapid Reset
// too ("MadeYouReset", CVE-2025-8671): each request here starts a handler,
// then a WINDOW_UPDATE overflows its stream's window (a stream error,
// RST_STREAM FLOW_CONTROL_ERROR), so the client never resets a stream itself.
TEST_F(Http2AttacksTest, ResetsProvokedByStreamErrorsEndTheConnectionToo) {
  const std::string script = R"(
import json, os, signal, socket, struct, sys, threading, time, hpack
def frame(kind, flags, stream, payload):
    return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(">I", stream) + payload
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.settimeout(5)
encoder = hpack.Encoder()
out = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + frame(4, 0, 0, b"")
for i in range(1000):
    stream = 2 * i + 1
    block = encoder.encode([(":method", "GET"), (":path", "/wait?ms=2000"), (":scheme", "http"), (":authority", "t")])
    out += frame(1, 5, stream, block) + frame(8, 0, stream, struct.pack(">I", 0x7FFFFFFF))
try:
    s.sendall(out)
except OSError:
    pass
seen = {}
pending = b""
try:
    while "goaway" not in seen:
        data = s.recv(65536)
        if not data:
            break
        pending += data
        while len(pending) >= 9:
            length = int.from_bytes(pending[:3], "big")
            if len(pending) < 9 + length:
                break
            kind, payload, pending = pending[3], pending[9:9 + length], pending[9 + length:]
            if kind == 7:
                seen["goaway"] = int.from_bytes(payload[4:8], "big")
except OSError:
    pass
print(json.dumps(seen))
)";
  const RunResult run = run_program(kPython, {"-c", script, std::to_string(clear_port_)}, 20s);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("\"goaway\": 11"), std::string::npos) << "expected ENHANCE_YOUR_CALM (11): " << run.out;
}

// Raw frames: Python's h2 refuses frames after a GOAWAY, and the point is the stream finishing
// after one. Opens stream 1 on `path` (after a pause of argv[3] ms, if given, between the
// preface with SETTINGS and the request), then prints when the GOAWAY (its last stream id and
// code), the answer's status and its end came, and when the connection closed, in ms.
constexpr const char* kGoawayWatcher = R"(
import json, os, signal, socket, struct, sys, threading, time, hpack
def frame(kind, flags, stream, payload):
    return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(">I", stream) + payload
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.settimeout(8)
decoder = hpack.Decoder()
block = hpack.Encoder().encode([(":method", "GET"), (":path", sys.argv[2]), (":scheme", "http"), (":authority", "t")])
s.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + frame(4, 0, 0, b""))
if len(sys.argv) > 3:
    time.sleep(int(sys.argv[3]) / 1000)
s.sendall(frame(1, 5, 1, block))
start = time.monotonic()
if len(sys.argv) > 5:
    threading.Timer(int(sys.argv[5]) / 1000, os.kill, (int(sys.argv[4]), signal.SIGTERM)).start()
seen = {}
pending = b""
while True:
    data = s.recv(65536)
    now = round((time.monotonic() - start) * 1000)
    if not data:
        seen["closed_ms"] = now
        break
    pending += data
    while len(pending) >= 9:
        length = int.from_bytes(pending[:3], "big")
        if len(pending) < 9 + length:
            break
        kind, flags = pending[3], pending[4]
        stream = int.from_bytes(pending[5:9], "big") & 0x7FFFFFFF
        payload, pending = pending[9:9 + length], pending[9 + length:]
        if kind == 4 and not flags & 1:
            s.sendall(frame(4, 1, 0, b""))
        if kind == 7:
            seen["goaway_ms"] = now
            seen["last_stream_id"] = int.from_bytes(payload[:4], "big") & 0x7FFFFFFF
            seen["goaway_code"] = int.from_bytes(payload[4:8], "big")
        if kind == 1 and stream == 1:
            seen["status"] = dict(decoder.decode(payload))[":status"]
        if kind in (0, 1) and stream == 1 and flags & 1:
            seen["ended_ms"] = now
print(json.dumps(seen))
)";

// Runs kGoawayWatcher on `path` against `server`'s h2c listener, which sends
// the server SIGTERM `signal_after` its request; returns its JSON line.
// Why the watcher signals: counted from its request, not from the start of a
// Python that may take a second to import on a loaded machine, the signal
// comes while the handler waits, as the tests mean it to.
std::string watch_goaway(ServerProcess& server, const std::string& path, std::chrono::milliseconds signal_after) {
  const int port = server.port_of("h2c");
  const RunResult client = run_program(kPython, {"-c", kGoawayWatcher, std::to_string(port), path, "0",
                                                 std::to_string(server.pid()), std::to_string(signal_after.count())},
                                       20s);
  EXPECT_EQ(client.exit_code, 0) << client.err;
  return client.out;
}

// The number after `"key": ` in the watcher's JSON, or -1.
int field_ms(const std::string& json, const std::string& key) {
  const auto at = json.find("\"" + key + "\": ");
  return at == std::string::npos ? -1 : std::stoi(json.substr(at + key.size() + 4));
}

// config_for with the probe plugin and a certificate written to `dir`, and
// `top_fields` (each followed by a comma) added at the top level.
std::string probe_config(const TempDir& dir, const std::string& top_fields = "") {
  const TestCertificate cert = write_test_certificate(dir.path(), "site", "localhost", {"localhost"});
  std::string config =
      config_for(under_test(TIFFANY_TEST_PLUGIN_DIR) + "/libh2_probe_plugin.so", cert.cert_file, cert.key_file);
  config.insert(1, top_fields);
  return config;
}

// A drain sends GOAWAY at once, even while a handler waits, and lets that
// stream finish before the server exits.
TEST(Http2Drain, GoawayGoesAtOnceAndTheOpenStreamFinishes) {
  const TempDir dir;
  ServerProcess server(probe_config(dir));
  const std::string seen = watch_goaway(server, "/wait?ms=2000", 500ms);
  EXPECT_NE(seen.find("\"goaway_code\": 0"), std::string::npos) << seen;
  EXPECT_NE(seen.find("\"last_stream_id\": 1"), std::string::npos) << seen;
  EXPECT_NE(seen.find("\"status\": \"200\""), std::string::npos) << seen;
  // GOAWAY at the signal (500 ms into the request), before the handler's 2 s are up: an order, not a
  // latency bound; a drain that waited for the stream would send it with the answer or after.
  const int goaway_ms = field_ms(seen, "goaway_ms");
  const int ended_ms = field_ms(seen, "ended_ms");
  ASSERT_GE(goaway_ms, 0) << seen;
  ASSERT_GE(ended_ms, 0) << seen;
  EXPECT_LT(goaway_ms, ended_ms) << seen;
  EXPECT_EQ(server.wait_for_exit(10s), 0) << server.err();
}

// A connection opened during drain_delay_ms whose client sends its preface and
// SETTINGS before its request (as Go's does) is served, not refused by a GOAWAY
// naming stream 0; the GOAWAY comes with its answer.
TEST(Http2Drain, AConnectionOpenedDuringTheDrainDelayIsServedBeforeItsGoaway) {
  const TempDir dir;
  ServerProcess server(probe_config(dir, R"("drain_delay_ms": 4000, )"));
  const int port = server.port_of("h2c");
  server.send_signal(SIGTERM);
  std::this_thread::sleep_for(300ms);
  const RunResult client = run_program(kPython, {"-c", kGoawayWatcher, std::to_string(port), "/plaintext", "150"}, 20s);
  ASSERT_EQ(client.exit_code, 0) << client.err;
  EXPECT_NE(client.out.find("\"status\": \"200\""), std::string::npos) << client.out;
  EXPECT_NE(client.out.find("\"last_stream_id\": 1"), std::string::npos) << client.out;
  EXPECT_EQ(server.wait_for_exit(15s), 0) << server.err();
}

// During drain_delay_ms the server still serves, and an HTTP/2 connection that
// is answered then gets a GOAWAY with its answer (HTTP/1.1's Connection: close),
// long before the drain itself begins.
TEST(Http2Drain, AConnectionAnsweredDuringTheDrainDelayGetsGoaway) {
  const TempDir dir;
  ServerProcess server(probe_config(dir, R"("drain_delay_ms": 4000, )"));
  const std::string seen = watch_goaway(server, "/wait?ms=1200", 300ms);
  EXPECT_NE(seen.find("\"goaway_code\": 0"), std::string::npos) << seen;
  EXPECT_NE(seen.find("\"last_stream_id\": 1"), std::string::npos) << seen;
  EXPECT_NE(seen.find("\"status\": \"200\""), std::string::npos) << seen;
  // The answer ends at about 1200 ms, and the GOAWAY comes with it. Why the keep-alive timeout as
  // the bound: without it the GOAWAY would come at that timeout (1500 ms after the answer) or at the
  // drain (4000 ms after the signal), never sooner, however loaded the machine.
  const int goaway_ms = field_ms(seen, "goaway_ms");
  const int ended_ms = field_ms(seen, "ended_ms");
  ASSERT_GE(goaway_ms, 0) << seen;
  ASSERT_GE(ended_ms, 0) << seen;
  EXPECT_LT(goaway_ms, ended_ms + kKeepAliveMs) << seen;
  EXPECT_EQ(server.wait_for_exit(15s), 0) << server.err();
}

}  // namespace
}  // namespace tiffany::testing
