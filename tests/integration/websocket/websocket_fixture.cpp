// The WebSocket tests' server: its config, started once per test process.
#include "integration/websocket/websocket_fixture.hpp"

#include <memory>

#include "integration/echo_client.hpp"
#include "support/test_certificate.hpp"

namespace tiffany::testing {
namespace {

struct Shared {
  std::unique_ptr<TempDir> dir;
  std::unique_ptr<ServerProcess> server;
  int plain_port = 0;
  int tls_port = 0;
};

Shared& shared() {
  static Shared instance;
  return instance;
}

}  // namespace

std::string websocket_config(const std::string& cert, const std::string& key, int drain_timeout_ms) {
  const std::string plugin = under_test(TIFFANY_TEST_PLUGIN_DIR) + "/libws_probe_plugin.so";
  const std::string routes = R"("routes": [
      {"method": "*", "path": "/ws", "handler": "websocket_echo", "with": {}},
      {"method": "GET", "path": "/nodeflate", "handler": "websocket_echo", "with": {"compression": false}},
      {"method": "GET", "path": "/chat", "handler": "websocket_echo", "with": {"subprotocols": ["chat", "superchat"]}},
      {"method": "GET", "path": "/small", "handler": "websocket_echo", "with": {"max_message_bytes": 1000}},
      {"method": "GET", "path": "/idle", "handler": "websocket_echo",
       "with": {"ping_interval_ms": 200, "pong_timeout_ms": 300}},
      {"method": "GET", "path": "/stall", "handler": "websocket_echo", "with": {"close_timeout_ms": 500}},
      {"method": "GET", "path": "/patient", "handler": "websocket_echo", "with": {"close_timeout_ms": 30000}},
      {"method": "GET", "path": "/plaintext", "handler": "text", "with": {"body": "Hello"}},
      {"method": "GET", "path": "/three", "handler": "wsprobe.three"},
      {"method": "GET", "path": "/throw", "handler": "wsprobe.throw"},
      {"method": "GET", "path": "/close", "handler": "wsprobe.close"},
      {"method": "GET", "path": "/race", "handler": "wsprobe.race"},
      {"method": "GET", "path": "/concurrent", "handler": "wsprobe.concurrent"},
      {"method": "GET", "path": "/late", "handler": "wsprobe.late"},
      {"method": "GET", "path": "/flood", "handler": "wsprobe.flood"},
      {"method": "GET", "path": "/deaf", "handler": "wsprobe.deaf"},
      {"method": "GET", "path": "/metrics", "handler": "metrics"}])";
  return R"({"workers": 1, "drain_timeout_ms": )" + std::to_string(drain_timeout_ms) + R"(, "plugins": [")" +
         plugin + R"("], "listeners": [
      {"name": "ws", "address": "127.0.0.1:0", "protocol": "http", "http2": {"enabled": true}, )" + routes + R"(},
      {"name": "wss", "address": "127.0.0.1:0", "protocol": "http", "http2": {"enabled": true}, "tls": {"cert": ")" + cert +
         R"(", "key": ")" + key + R"("}, )" + routes + R"(}]})";
}

void WebSocketTest::SetUpTestSuite() {
  Shared& s = shared();
  if (s.server) return;
  s.dir = std::make_unique<TempDir>();
  const TestCertificate cert = write_test_certificate(s.dir->path(), "site", "localhost", {"localhost"});
  s.server = std::make_unique<ServerProcess>(websocket_config(cert.cert_file, cert.key_file));
  s.plain_port = s.server->port_of("ws");
  s.tls_port = s.server->port_of("wss");
}

void WebSocketTest::TearDown() {
  const UniqueFd probe = connect_loopback(shared().plain_port);
  ASSERT_TRUE(probe.valid()) << "the server died: " << server().err();
}

ServerProcess& WebSocketTest::server() { return *shared().server; }

int WebSocketTest::port(bool tls) { return tls ? shared().tls_port : shared().plain_port; }

}  // namespace tiffany::testing
