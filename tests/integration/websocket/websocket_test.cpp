// WebSocket end to end with an independent client: Python's websockets (ws_client.py) against websocket_echo,
// over plain TCP and TLS: echoes of every kind of message, ping, close codes, subprotocols, permessage-deflate.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "integration/server_process.hpp"
#include "integration/websocket/websocket_fixture.hpp"

namespace tiffany::testing {
namespace {

using namespace std::chrono_literals;

const std::string kDriver = std::string(TIFFANY_SOURCE_DIR) + "/tests/integration/websocket/ws_client.py";
// Why this interpreter: Debian's python3-websockets belongs to it; `python3` on PATH may be another.
const std::string kPython = "/usr/bin/python3";

class WebSocketClientTest : public WebSocketTest {
 protected:
  /// Runs the driver's `scenarios` on one transport; returns its JSON (failing the test if it did not run).
  static std::string drive(bool tls, const std::vector<std::string>& scenarios) {
    std::vector<std::string> args{kDriver, "--port", std::to_string(port(tls))};
    if (tls) args.push_back("--tls");
    args.insert(args.end(), scenarios.begin(), scenarios.end());
    const RunResult run = run_program(kPython, args, 60s);
    EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
    EXPECT_TRUE(run.out.starts_with("{")) << run.out << run.err;
    EXPECT_EQ(run.out.find("\"error\""), std::string::npos) << run.out;
    return run.out;
  }
  static bool has(const std::string& json, const std::string& part) { return json.find(part) != std::string::npos; }
};

TEST_F(WebSocketClientTest, TextBinaryFragmentedLargeAndNonAsciiMessagesAreEchoed) {
  for (const bool tls : {false, true}) {
    SCOPED_TRACE(tls ? "TLS" : "plain");
    const std::string json = drive(tls, {"text", "binary", "fragmented", "large", "unicode"});
    EXPECT_TRUE(has(json, R"("text": {"sent": "hello, tiffany", "received": "hello, tiffany", "text": true})")) << json;
    EXPECT_TRUE(has(json, R"("binary": {"equal": true, "text": false})")) << json;
    EXPECT_TRUE(has(json, R"("fragmented": {"received": "fragmented ✓"})")) << json;
    EXPECT_TRUE(has(json, R"("large": {"size": 204800, "equal": true})")) << json;
    EXPECT_TRUE(has(json, R"("unicode": {"equal": true, "received": "héllo wörld — 日本語 🎉𝄞"})")) << json;
  }
}

TEST_F(WebSocketClientTest, APingIsAnsweredWithAPong) {
  for (const bool tls : {false, true}) {
    SCOPED_TRACE(tls ? "TLS" : "plain");
    const std::string json = drive(tls, {"ping"});
    EXPECT_TRUE(has(json, R"("ping": {"pong_ms": )")) << json;
  }
}

TEST_F(WebSocketClientTest, TheClientsCloseIsEchoedWithItsCode) {
  for (const bool tls : {false, true}) {
    SCOPED_TRACE(tls ? "TLS" : "plain");
    const std::string json = drive(tls, {"close"});
    // The server answers a close with the same code (RFC 6455 §5.5.1), and no reason.
    EXPECT_TRUE(has(json, R"("close": {"code": 4001, "reason": "", "echoed": "before close"})")) << json;
  }
}

TEST_F(WebSocketClientTest, TheServersPreferredSubprotocolAmongTheOfferedIsChosen) {
  for (const bool tls : {false, true}) {
    SCOPED_TRACE(tls ? "TLS" : "plain");
    // Offered ["superchat", "chat"]; the route's list is ["chat", "superchat"]: the route's order decides.
    const std::string json = drive(tls, {"subprotocol"});
    EXPECT_TRUE(has(json, R"("subprotocol": {"subprotocol": "chat", "echoed": "with a subprotocol"})")) << json;
  }
}

TEST_F(WebSocketClientTest, PermessageDeflateIsDeclinedWhereCompressionIsOffAndWhenNotOffered) {
  for (const bool tls : {false, true}) {
    SCOPED_TRACE(tls ? "TLS" : "plain");
    const std::string json = drive(tls, {"no_compression"});
    EXPECT_TRUE(has(json, R"("no_compression": {"offered": [], "plain": [], "echo": true})")) << json;
  }
}

TEST_F(WebSocketClientTest, PermessageDeflateIsAgreedByDefaultAndMessagesSurviveIt) {
  for (const bool tls : {false, true}) {
    SCOPED_TRACE(tls ? "TLS" : "plain");
    const std::string json = drive(tls, {"compression"});
    EXPECT_TRUE(has(json, R"("compression": {"extensions": ["PerMessageDeflate"], "equal": true})")) << json;
  }
}

}  // namespace
}  // namespace tiffany::testing
