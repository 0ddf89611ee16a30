// The WebSocket tests' server: one real tiffany per test process with plain and TLS listeners and every route the tests use.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "integration/server_process.hpp"

namespace tiffany::testing {

/// The config: listeners "ws" (plain) and "wss" (TLS, `cert`/`key`), both also speaking HTTP/2 (prior
/// knowledge, ALPN), one worker, and routes
///   /ws (websocket_echo, any method, permessage-deflate on by default), /nodeflate (compression
///   off), /chat (subprotocols chat, superchat), /small
///   (max_message_bytes 1000), /idle (pings every 200 ms, pong timeout 300 ms), /stall
///   (close_timeout 500 ms), /patient (close_timeout 30 s), /plaintext ("Hello"), and the
///   ws_probe plugin's /three, /throw, /close, /race, /concurrent, /late, /flood.
std::string websocket_config(const std::string& cert, const std::string& key, int drain_timeout_ms = 5000);

/// A suite against the shared server (started once per process, kept to the end).
class WebSocketTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite();
  /// Fails the test if the server no longer answers (it crashed during the test).
  void TearDown() override;
  static ServerProcess& server();
  static int port(bool tls);
};

}  // namespace tiffany::testing
