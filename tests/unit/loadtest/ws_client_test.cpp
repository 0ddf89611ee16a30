// The WebSocket client side of the load clients (loadtest/ws_client.hpp): keys the server's
// handshake check accepts, the 101 check, and masked frames the server's reader reads back.
#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <tiffany/http/request.hpp>

#include "http/engine/websocket/handshake.hpp"
#include "http/engine/websocket/message_reader.hpp"
#include "loadtest/ws_client.hpp"

namespace tiffany::loadtest {
namespace {

namespace ws = http::websocket;

std::string switching_protocols(std::string_view accept_field) {
  return "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" + std::string(accept_field) +
         "\r\n\r\n";
}

TEST(LoadtestWebSocketClient, KeysAreTheBase64OfSixteenBytesAndDifferBySeed) {
  std::set<std::string> keys;
  for (std::uint64_t seed = 1; seed <= 100; ++seed) {
    const std::string key = websocket_key(seed);
    ASSERT_EQ(key.size(), 24u) << key;
    EXPECT_EQ(key.substr(22), "==") << key;
    http::Request request;
    request.method = "GET";
    request.target = request.path = "/ws";
    request.headers.add("Host", "127.0.0.1");
    request.headers.add("Upgrade", "websocket");
    request.headers.add("Connection", "Upgrade");
    request.headers.add("Sec-WebSocket-Key", key);
    request.headers.add("Sec-WebSocket-Version", "13");
    const ws::HandshakeVerdict verdict = ws::check_handshake(request, {});
    EXPECT_EQ(verdict.status, 0) << key << ": " << verdict.why;
    keys.insert(key);
  }
  EXPECT_EQ(keys.size(), 100u);
}

TEST(LoadtestWebSocketClient, TheUpgradeRequestAsksForVersion13AndOffersNoExtension) {
  const std::string request = upgrade_request("/ws", "dGhlIHNhbXBsZSBub25jZQ==");
  EXPECT_EQ(request.rfind("GET /ws HTTP/1.1\r\n", 0), 0u) << request;
  EXPECT_NE(request.find("\r\nUpgrade: websocket\r\n"), std::string::npos);
  EXPECT_NE(request.find("\r\nConnection: Upgrade\r\n"), std::string::npos);
  EXPECT_NE(request.find("\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"), std::string::npos);
  EXPECT_NE(request.find("\r\nSec-WebSocket-Version: 13\r\n"), std::string::npos);
  EXPECT_EQ(request.find("Extensions"), std::string::npos);
  EXPECT_EQ(request.substr(request.size() - 4), "\r\n\r\n");
}

TEST(LoadtestWebSocketClient, AcceptsOnlyA101WithTheAcceptValueTheKeyCallsFor) {
  const std::string key = "dGhlIHNhbXBsZSBub25jZQ==";  // RFC 6455 §1.3
  EXPECT_EQ(check_upgrade_response(switching_protocols("Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo="), key), "");
  EXPECT_EQ(check_upgrade_response(switching_protocols("sec-websocket-accept:s3pPLMBiTxaQ9kYGzzhZRbK+xOo= "), key), "");
  EXPECT_NE(check_upgrade_response(switching_protocols("Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOx="), key), "");
  EXPECT_NE(check_upgrade_response(switching_protocols("X-Other: 1"), key), "");
  EXPECT_NE(check_upgrade_response(switching_protocols("Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n"
                                                       "Sec-WebSocket-Extensions: permessage-deflate"),
                                   key),
            "");
  EXPECT_NE(check_upgrade_response("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", key), "");
  EXPECT_NE(check_upgrade_response("HTTP/1.1 1010 Nope\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n", key),
            "");
}

TEST(LoadtestWebSocketClient, MaskedFramesOfEveryLengthFormReadBackThroughTheServersReader) {
  std::uint32_t mask = 0x12345678;
  for (const std::size_t size : std::vector<std::size_t>{0, 1, 125, 126, 512, 65535, 65536, 100000}) {
    std::string payload(size, '\0');
    for (std::size_t i = 0; i < size; ++i) payload[i] = static_cast<char>(i * 7 + 3);
    std::string frame;
    append_masked_frame(frame, ws::Opcode::binary, payload, mask);
    mask = mask * 1664525u + 1013904223u;
    ASSERT_GT(frame.size(), size);
    if (size >= 4) {
      EXPECT_NE(frame.substr(frame.size() - size), payload) << "the payload went out unmasked";
    }
    ws::MessageReader reader;  // a server's: frames must be masked
    std::string_view input = frame;
    const ws::Event event = reader.next(input);
    ASSERT_EQ(event.kind, ws::Event::Kind::message) << size << ": " << event.why;
    EXPECT_FALSE(event.text);
    EXPECT_EQ(event.payload, payload) << size;
    EXPECT_TRUE(input.empty());
  }
}

TEST(LoadtestWebSocketClient, AMaskedCloseCarriesItsCode) {
  std::string frame;
  append_masked_close(frame, ws::close_code::normal, 0xa1b2c3d4);
  ws::MessageReader reader;
  std::string_view input = frame;
  const ws::Event event = reader.next(input);
  ASSERT_EQ(event.kind, ws::Event::Kind::close) << event.why;
  EXPECT_EQ(event.code, ws::close_code::normal);
}

}  // namespace
}  // namespace tiffany::loadtest
