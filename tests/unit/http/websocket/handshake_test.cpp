// The WebSocket opening handshake, server side (RFC 6455 §4.2): which requests are accepted, each
// refusal's status, the Sec-WebSocket-Accept value, and the subprotocol chosen.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <tiffany/http/request.hpp>

#include "http/engine/websocket/handshake.hpp"

namespace tiffany::http::websocket {
namespace {

// The handshake of RFC 6455 §1.3 ("the sample nonce"), as a client sends it.
Request handshake_request() {
  Request request;
  request.method = "GET";
  request.target = request.path = "/chat";
  request.headers.add("Host", "server.example.com");
  request.headers.add("Upgrade", "websocket");
  request.headers.add("Connection", "Upgrade");
  request.headers.add("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==");
  request.headers.add("Sec-WebSocket-Version", "13");
  return request;
}

HandshakeVerdict check(const Request& request, const std::vector<std::string>& ours = {}) {
  return check_handshake(request, ours);
}

TEST(WebSocketHandshake, TheRfcsSampleKeyGetsTheRfcsAcceptValue) {
  EXPECT_EQ(accept_value("dGhlIHNhbXBsZSBub25jZQ=="), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");  // §1.3
  const HandshakeVerdict verdict = check(handshake_request());
  EXPECT_EQ(verdict.status, 0) << verdict.why;
  EXPECT_EQ(verdict.accept, "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
  EXPECT_TRUE(verdict.subprotocol.empty());
}

TEST(WebSocketHandshake, UpgradeAndConnectionAreTokenListsMatchedWithoutCase) {
  Request request = handshake_request();
  request.headers.set("Upgrade", "h2c, WebSocket");
  request.headers.set("Connection", "keep-alive, UPGRADE");
  EXPECT_EQ(check(request).status, 0);
  // The token split over two fields of the same name counts as well.
  request.headers.set("Connection", "keep-alive");
  request.headers.add("Connection", "upgrade");
  EXPECT_EQ(check(request).status, 0);
}

TEST(WebSocketHandshake, ARequestThatDidNotAskToUpgradeGets426) {
  Request request = handshake_request();
  request.headers.remove("Upgrade");
  EXPECT_EQ(check(request).status, 426);
  request = handshake_request();
  request.headers.set("Connection", "keep-alive");
  EXPECT_EQ(check(request).status, 426);
  request = handshake_request();
  request.headers.set("Upgrade", "websocketx");
  EXPECT_EQ(check(request).status, 426);
}

TEST(WebSocketHandshake, AnotherVersionGets426NamingOurs) {
  for (const char* version : {"8", "12", "14", "13, 8", ""}) {
    Request request = handshake_request();
    request.headers.set("Sec-WebSocket-Version", version);
    const HandshakeVerdict verdict = check(request);
    EXPECT_EQ(verdict.status, 426) << version;
    EXPECT_TRUE(verdict.wrong_version) << version;
  }
  Request missing = handshake_request();
  missing.headers.remove("Sec-WebSocket-Version");
  EXPECT_TRUE(check(missing).wrong_version);
}

TEST(WebSocketHandshake, AKeyThatIsNotTheBase64OfSixteenBytesGets400) {
  for (const char* key : {"", "dGhlIHNhbXBsZSBub25jZQ", "dGhlIHNhbXBsZSBub25jZQ=", "dGhlIHNhbXBsZSBub25jZQ===",
                          "dGhlIHNhbXBsZSBub25jZR==",  // bits past the 16th byte: not canonical
                          "dGhlIHNhbXBsZSBub25j*Q==", "dGhlIHNhbXBsZSBub25jZQ==dGhl"}) {
    Request request = handshake_request();
    request.headers.set("Sec-WebSocket-Key", key);
    EXPECT_EQ(check(request).status, 400) << key;
  }
  Request twice = handshake_request();
  twice.headers.add("Sec-WebSocket-Key", "AAAAAAAAAAAAAAAAAAAAAA==");
  EXPECT_EQ(check(twice).status, 400);
  Request none = handshake_request();
  none.headers.remove("Sec-WebSocket-Key");
  EXPECT_EQ(check(none).status, 400);
}

TEST(WebSocketHandshake, OnlyABodilessHttp11GetIsAHandshake) {
  Request post = handshake_request();
  post.method = "POST";
  EXPECT_EQ(check(post).status, 400);
  Request old = handshake_request();
  old.version_minor = 0;
  EXPECT_EQ(check(old).status, 400);
  Request with_body = handshake_request();
  with_body.headers.add("Content-Length", "5");
  EXPECT_EQ(check(with_body).status, 400);
  Request chunked = handshake_request();
  chunked.headers.add("Transfer-Encoding", "chunked");
  EXPECT_EQ(check(chunked).status, 400);
  Request empty_body = handshake_request();
  empty_body.headers.add("Content-Length", "0");
  EXPECT_EQ(check(empty_body).status, 0);
}

TEST(WebSocketHandshake, TheFirstOfOurSubprotocolsTheClientOffersIsChosen) {
  Request request = handshake_request();
  request.headers.add("Sec-WebSocket-Protocol", "superchat, chat");
  EXPECT_EQ(check(request, {"chat", "superchat"}).subprotocol, "chat");
  EXPECT_EQ(check(request, {"superchat", "chat"}).subprotocol, "superchat");
  EXPECT_EQ(check(request, {"mqtt"}).subprotocol, "");
  EXPECT_EQ(check(request, {}).subprotocol, "");
  // Names are compared as sent: "Chat" is another subprotocol.
  EXPECT_EQ(check(request, {"Chat"}).subprotocol, "");
  Request two_fields = handshake_request();
  two_fields.headers.add("Sec-WebSocket-Protocol", "v1.stomp");
  two_fields.headers.add("Sec-WebSocket-Protocol", " v2.stomp ");
  EXPECT_EQ(check(two_fields, {"v2.stomp", "v1.stomp"}).subprotocol, "v2.stomp");
}

TEST(WebSocketHandshake, ListHasTokenTrimsEachElement) {
  EXPECT_TRUE(list_has_token("a, b ,\tc", "b"));
  EXPECT_TRUE(list_has_token("a, b ,\tc", "C"));
  EXPECT_FALSE(list_has_token("ab, bc", "b"));
  EXPECT_FALSE(list_has_token("", "b"));
  EXPECT_TRUE(list_has_token(",,b,", "b"));
}

}  // namespace
}  // namespace tiffany::http::websocket
