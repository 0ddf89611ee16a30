// WebSocket over HTTP/2 (RFC 8441) end to end: extended CONNECT from Python's h2 package
// (ws_h2_client.py) against the real binary, cleartext (prior knowledge) and TLS (ALPN h2).
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "integration/server_process.hpp"
#include "integration/websocket/websocket_fixture.hpp"
#include "support/test_certificate.hpp"

namespace tiffany::testing {
namespace {

using namespace std::chrono_literals;

const std::string kDriver = std::string(TIFFANY_SOURCE_DIR) + "/tests/integration/websocket/ws_h2_client.py";
// Why this interpreter: Debian's python3-h2 belongs to it; `python3` on PATH may be another.
const std::string kPython = "/usr/bin/python3";

bool has(const std::string& json, const std::string& part) { return json.find(part) != std::string::npos; }

/// Runs the driver's `scenarios` against `port`; returns its JSON (failing the test if it did not run).
std::string drive(int port, bool tls, const std::vector<std::string>& scenarios, std::vector<std::string> extra = {}) {
  std::vector<std::string> args{kDriver, "--port", std::to_string(port)};
  if (tls) args.push_back("--tls");
  args.insert(args.end(), extra.begin(), extra.end());
  args.insert(args.end(), scenarios.begin(), scenarios.end());
  const RunResult run = run_program(kPython, args, 60s);
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_TRUE(run.out.starts_with("{")) << run.out << run.err;
  EXPECT_FALSE(has(run.out, "\"error\"")) << run.out;
  return run.out;
}

class WebSocketOverHttp2Test : public WebSocketTest {
 protected:
  static std::string drive(bool tls, const std::vector<std::string>& scenarios) {
    return testing::drive(port(tls), tls, scenarios);
  }
};

TEST_F(WebSocketOverHttp2Test, TheServerOffersExtendedConnect) {
  for (const bool tls : {false, true}) {
    SCOPED_TRACE(tls ? "TLS" : "cleartext");
    EXPECT_TRUE(has(drive(tls, {"settings"}), R"("settings": {"enable_connect_protocol": 1})"));
  }
}

TEST_F(WebSocketOverHttp2Test, MessagesFragmentsPingsAndTheCloseHandshakeWorkOnAStream) {
  for (const bool tls : {false, true}) {
    SCOPED_TRACE(tls ? "TLS" : "cleartext");
    const std::string json = drive(tls, {"echo"});
    EXPECT_TRUE(has(json, R"("status": 200, "text": "hello over h2", "binary_equal": true, "pong_between": true)"))
        << json;
    EXPECT_TRUE(has(json, R"("fragmented": "fragmented", "pong": "are you there", "close_code": 4001)")) << json;
    // The server ends its side of the stream after the close handshake, as it would close TCP.
    EXPECT_TRUE(has(json, R"("stream_ended": true)")) << json;
  }
}

TEST_F(WebSocketOverHttp2Test, AMessageLargerThanBothWindowsArrivesWholeEachWay) {
  for (const bool tls : {false, true}) {
    SCOPED_TRACE(tls ? "TLS" : "cleartext");
    EXPECT_TRUE(has(drive(tls, {"large"}), R"("large": {"size": 307200, "equal": true})"));
  }
}

TEST_F(WebSocketOverHttp2Test, PermessageDeflateIsNegotiatedAndUsed) {
  const std::string json = drive(false, {"deflate"});
  EXPECT_TRUE(has(json, R"("status": 200, "extensions": "permessage-deflate)")) << json;
  EXPECT_TRUE(has(json, R"("equal": true, "compressed_reply": true)")) << json;
}

TEST_F(WebSocketOverHttp2Test, SeveralWebSocketsAndARequestShareOneConnection) {
  for (const bool tls : {false, true}) {
    SCOPED_TRACE(tls ? "TLS" : "cleartext");
    const std::string json = drive(tls, {"concurrent"});
    EXPECT_TRUE(has(json, R"("sockets": 4, "statuses": [200], "echoed": 80, "get_status": 200)")) << json;
  }
}

TEST_F(WebSocketOverHttp2Test, RequestsThatCannotOpenAWebSocketGetPreciseAnswers) {
  const std::string json = drive(false, {"refusals"});
  // A GET cannot upgrade over HTTP/2 (400); CONNECT for another protocol is not offered (501); a route
  // that does not speak WebSocket must not answer 2xx, which would say the tunnel is open (400); another
  // version is 400 naming ours (426 would need an Upgrade field, which HTTP/2 forbids).
  EXPECT_TRUE(has(json, R"("plain_get": 400, "other_protocol": 501, "not_websocket": 400, "old_version": 400)")) << json;
  EXPECT_TRUE(has(json, R"("version_named": "13")")) << json;
}

TEST_F(WebSocketOverHttp2Test, AStreamResetByTheClientEndsItsWebSocketAndTheConnectionGoesOn) {
  const std::string json = drive(false, {"reset"});
  EXPECT_TRUE(has(json, R"("after_reset": "after the reset")")) << json;
  // Only the second is open: the reset one's session ended with its stream.
  EXPECT_TRUE(has(json, R"("open": 1)")) << json;
}

TEST_F(WebSocketOverHttp2Test, AHandlerReturningClosesWith1000AndOneThrowingWith1011) {
  const std::string json = drive(true, {"handlers"});
  EXPECT_TRUE(has(json, R"("three": ["one", "two", "three"], "three_close": 1000, "throw_close": 1011)")) << json;
}

// Over HTTP/1.1 a WebSocket is a connection, held to the listener's limits;
// over HTTP/2 each one counts the same. max_connections 3: the connection
// and two WebSockets; the next are refused (503) until one closes.
TEST(WebSocketOverHttp2LimitsTest, EachWebSocketCountsAsAConnectionInTheListenersLimits) {
  ServerProcess server(R"({"workers": 1, "listeners": [{"name": "ws", "address": "127.0.0.1:0", "protocol": "http",
      "http2": {"enabled": true}, "limits": {"max_connections": 3},
      "routes": [{"method": "*", "path": "/ws", "handler": "websocket_echo", "with": {}}]}]})");
  const std::string json = drive(server.port_of("ws"), false, {"limited"});
  EXPECT_TRUE(has(json, R"("limited": {"statuses": [200, 200, 503, 503], "after_close": 200})")) << json;
}

// Why a drain timeout of 10 s in the drain tests: the time checked runs from before the client's
// Python starts, which a loaded machine can stretch to seconds; a drain that waited out its timeout
// takes at least that timeout, whatever the load, so the timeout itself is the bound.
constexpr auto kDrainTimeout = 10s;

TEST(WebSocketOverHttp2DrainTest, ShuttingDownClosesWith1001EndsTheStreamAndExitsCleanly) {
  TempDir dir;
  const TestCertificate cert = write_test_certificate(dir.path(), "site", "localhost", {"localhost"});
  ServerProcess server(websocket_config(cert.cert_file, cert.key_file, static_cast<int>(kDrainTimeout / 1ms)));
  const auto started = std::chrono::steady_clock::now();
  const std::string json =
      drive(server.port_of("wss"), true, {"drain"}, {"--signal-pid", std::to_string(server.pid())});
  EXPECT_TRUE(has(json, R"("drain": {"close_code": 1001, "stream_ended": true, "goaway": 0})")) << json;
  EXPECT_EQ(server.wait_for_exit(5s), 0) << server.err();
  EXPECT_LT(std::chrono::steady_clock::now() - started, kDrainTimeout) << "the drain waited out its timeout";
}

// The client drops the connection while its WebSockets close: the connection ends with
// their sessions still finishing, and must wait for them (under ASan this catches a
// stream freed under its session's tasks) before the drain lets the worker stop.
TEST(WebSocketOverHttp2DrainTest, AClientDroppingTheConnectionMidDrainStillLetsTheServerExitCleanly) {
  TempDir dir;
  const TestCertificate cert = write_test_certificate(dir.path(), "site", "localhost", {"localhost"});
  ServerProcess server(websocket_config(cert.cert_file, cert.key_file, static_cast<int>(kDrainTimeout / 1ms)));
  const auto started = std::chrono::steady_clock::now();
  const std::string json =
      drive(server.port_of("ws"), false, {"drain_abrupt"}, {"--signal-pid", std::to_string(server.pid())});
  EXPECT_TRUE(has(json, R"("drain_abrupt": {"close_code": 1001})")) << json;
  EXPECT_EQ(server.wait_for_exit(5s), 0) << server.err();
  EXPECT_LT(std::chrono::steady_clock::now() - started, kDrainTimeout) << "the drain waited out its timeout";
}

}  // namespace
}  // namespace tiffany::testing
