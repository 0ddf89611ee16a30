// WebSocket at the byte level: a hand-written client sends handshakes and frames (good, bad, early, pipelined)
// and checks the server's exact answers, pings, time limits, memory under a slow consumer, and drain; TCP and TLS.
#include <signal.h>

#include <gtest/gtest.h>
#include <zlib.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "integration/server_process.hpp"
#include "integration/websocket/websocket_fixture.hpp"
#include "integration/websocket/ws_raw_client.hpp"
#include "support/test_certificate.hpp"

namespace tiffany::testing {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

constexpr std::uint8_t kContinuation = 0x0, kText = 0x1, kBinary = 0x2, kClose = 0x8, kPing = 0x9, kPong = 0xA;

const char* transport(bool tls) { return tls ? "TLS" : "plain"; }

/// Reads frames until the server's close; expects `code` in it and then the end of the connection.
void expect_close_then_end(WsRawClient& client, std::uint16_t code) {
  std::optional<WsFrame> frame;
  for (;;) {
    frame = client.read_frame(3s);
    if (!frame || frame->opcode == kClose) break;
  }
  ASSERT_TRUE(frame.has_value()) << "no close frame; closed: " << client.closed();
  EXPECT_EQ(frame->close_code(), code) << "reason: " << frame->close_reason();
  EXPECT_FALSE(frame->masked) << "a server's frames are never masked";
  EXPECT_TRUE(client.wait_closed(3s)) << "the server kept the connection after closing it";
}

class WebSocketRawTest : public WebSocketTest {};

struct BadInput {
  const char* name;
  std::string bytes;
  std::uint16_t code;
};

std::vector<BadInput> bad_inputs() {
  return {
      {"an unmasked client frame", ws_frame(kText, "hi", true, false), 1002},
      {"RSV1 without an extension", ws_frame(kText, "hi", true, true, 0x40), 1002},
      {"RSV3", ws_frame(kBinary, "hi", true, true, 0x10), 1002},
      {"reserved data opcode 3", ws_frame(0x3, "hi"), 1002},
      {"reserved control opcode 0xB", ws_frame(0xB, ""), 1002},
      {"a fragmented ping", ws_frame(kPing, "x", false), 1002},
      {"a 126-byte ping", ws_frame(kPing, std::string(126, 'p')), 1002},
      {"a continuation with no message begun", ws_frame(kContinuation, "lost"), 1002},
      {"a new message inside a fragmented one", ws_frame(kText, "one", false) + ws_frame(kText, "two"), 1002},
      {"a new binary message inside a fragmented text",
       ws_frame(kText, "one", false) + ws_frame(kBinary, "two"), 1002},
      {"text that is not UTF-8", ws_frame(kText, "bad \xff byte"), 1007},
      {"an overlong UTF-8 encoding", ws_frame(kText, "\xc0\xaf"), 1007},
      {"a UTF-16 surrogate in UTF-8", ws_frame(kText, "\xed\xa0\x80"), 1007},
      {"bad UTF-8 across fragments", ws_frame(kText, "ok \xc3", false) + ws_frame(kContinuation, "(", true), 1007},
      {"text ending inside a character", ws_frame(kText, "ok \xe2\x82", false) + ws_frame(kContinuation, "", true),
       1007},
      {"a close with a one-byte payload", ws_frame(kClose, "\x03"), 1002},
      {"close code 1005 (never sent)", ws_close_frame(1005), 1002},
      {"close code 1006 (never sent)", ws_close_frame(1006), 1002},
      {"close code 999", ws_close_frame(999), 1002},
      {"close code 1016 (unassigned)", ws_close_frame(1016), 1002},
      {"close code 5000", ws_close_frame(5000), 1002},
      {"a close reason that is not UTF-8", ws_close_frame(1000, "\xff"), 1007},
  };
}

TEST_F(WebSocketRawTest, EachProtocolErrorIsClosedWithItsCodeAndThenTheConnection) {
  for (const bool tls : {false, true}) {
    for (const BadInput& input : bad_inputs()) {
      SCOPED_TRACE(std::string(transport(tls)) + ": " + input.name);
      WsRawClient client(port(tls), tls);
      ASSERT_TRUE(client.ok()) << client.error();
      ASSERT_TRUE(client.handshake("/ws"));
      ASSERT_TRUE(client.send(input.bytes));
      expect_close_then_end(client, input.code);
    }
  }
}

TEST_F(WebSocketRawTest, AMessageOverMaxMessageBytesIsClosedWith1009) {
  for (const bool tls : {false, true}) {
    SCOPED_TRACE(transport(tls));
    {
      WsRawClient client(port(tls), tls);
      ASSERT_TRUE(client.handshake("/small"));
      // At the limit it is echoed.
      ASSERT_TRUE(client.send(ws_frame(kBinary, std::string(1000, 'a'))));
      const std::optional<WsFrame> echo = client.read_data_frame();
      ASSERT_TRUE(echo.has_value());
      EXPECT_EQ(echo->payload, std::string(1000, 'a'));
      ASSERT_TRUE(client.send(ws_frame(kBinary, std::string(1001, 'b'))));
      expect_close_then_end(client, 1009);
    }
    {
      // Fragments count together.
      WsRawClient client(port(tls), tls);
      ASSERT_TRUE(client.handshake("/small"));
      ASSERT_TRUE(client.send(ws_frame(kText, std::string(600, 'c'), false) + ws_frame(kContinuation, std::string(600, 'd'))));
      expect_close_then_end(client, 1009);
    }
  }
}

TEST_F(WebSocketRawTest, ValidUtf8SplitAcrossFragmentsAndInterleavedControlFramesAreAccepted) {
  for (const bool tls : {false, true}) {
    SCOPED_TRACE(transport(tls));
    WsRawClient client(port(tls), tls);
    ASSERT_TRUE(client.handshake("/ws"));
    // "é" split between two fragments, a ping between them (control frames may interleave, §5.4).
    ASSERT_TRUE(client.send(ws_frame(kText, "caf\xc3", false) + ws_frame(kPing, "mid") +
                            ws_frame(kContinuation, "\xa9!", true)));
    const std::optional<WsFrame> pong = client.read_frame();
    ASSERT_TRUE(pong.has_value());
    EXPECT_EQ(pong->opcode, kPong);
    EXPECT_EQ(pong->payload, "mid");
    const std::optional<WsFrame> echo = client.read_frame();
    ASSERT_TRUE(echo.has_value());
    EXPECT_EQ(echo->opcode, kText);
    EXPECT_TRUE(echo->fin);
    EXPECT_EQ(echo->payload, "caf\xc3\xa9!");
    ASSERT_TRUE(client.send(ws_close_frame(1000, "thanks")));
    expect_close_then_end(client, 1000);
  }
}

struct Refusal {
  const char* name;
  std::string request;
  int status;
  const char* header;  // a header line the refusal must carry, or nullptr
};

std::string upgrade_request(const std::string& first_line, const std::string& headers) {
  return first_line + "\r\nHost: localhost\r\n" + headers + "\r\n";
}

std::vector<Refusal> refusals() {
  const std::string upgrade = "Upgrade: websocket\r\nConnection: Upgrade\r\n";
  const std::string key = "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n";
  const std::string v13 = "Sec-WebSocket-Version: 13\r\n";
  return {
      {"a plain GET", upgrade_request("GET /ws HTTP/1.1", ""), 426, "\r\nUpgrade: websocket\r\n"},
      {"Upgrade without Connection: Upgrade",
       upgrade_request("GET /ws HTTP/1.1", "Upgrade: websocket\r\n" + key + v13), 426, "\r\nUpgrade: websocket\r\n"},
      {"version 8", upgrade_request("GET /ws HTTP/1.1", upgrade + key + "Sec-WebSocket-Version: 8\r\n"), 426,
       "\r\nSec-WebSocket-Version: 13\r\n"},
      {"no version", upgrade_request("GET /ws HTTP/1.1", upgrade + key), 426, "\r\nSec-WebSocket-Version: 13\r\n"},
      {"no key", upgrade_request("GET /ws HTTP/1.1", upgrade + v13), 400, nullptr},
      {"a key of 15 bytes", upgrade_request("GET /ws HTTP/1.1", upgrade + v13 + "Sec-WebSocket-Key: AAAAAAAAAAAAAAAAAAAA\r\n"),
       400, nullptr},
      {"a key that is not base64",
       upgrade_request("GET /ws HTTP/1.1", upgrade + v13 + "Sec-WebSocket-Key: !!!!!!!!!!!!!!!!!!!!!!==\r\n"), 400,
       nullptr},
      {"two keys", upgrade_request("GET /ws HTTP/1.1", upgrade + v13 + key + key), 400, nullptr},
      {"POST", upgrade_request("POST /ws HTTP/1.1", upgrade + key + v13 + "Content-Length: 0\r\n"), 400, nullptr},
      {"HTTP/1.0", upgrade_request("GET /ws HTTP/1.0", upgrade + key + v13), 400, nullptr},
      {"a body", upgrade_request("GET /ws HTTP/1.1", upgrade + key + v13 + "Content-Length: 5\r\n") + "hello", 400,
       nullptr},
  };
}

TEST_F(WebSocketRawTest, BadHandshakesAreRefusedWithTheirStatusAndNo101) {
  for (const bool tls : {false, true}) {
    for (const Refusal& refusal : refusals()) {
      SCOPED_TRACE(std::string(transport(tls)) + ": " + refusal.name);
      WsRawClient client(port(tls), tls);
      ASSERT_TRUE(client.ok()) << client.error();
      ASSERT_TRUE(client.send(refusal.request));
      const std::string response = client.read_http();
      ASSERT_FALSE(response.empty()) << "no answer";
      EXPECT_TRUE(response.starts_with("HTTP/1." ) && response.substr(9, 3) == std::to_string(refusal.status))
          << response;
      if (refusal.header != nullptr) {
        EXPECT_NE(response.find(refusal.header), std::string::npos) << response;
      }
      EXPECT_EQ(response.find("Sec-WebSocket-Accept"), std::string::npos) << response;
      // Nothing else follows on the wire: no 101 after the refusal, no frame.
      const std::string after = client.read_http(300ms);
      EXPECT_EQ(after.find("101"), std::string::npos) << after;
    }
  }
}

TEST_F(WebSocketRawTest, OverHttp2APlainGetOfAWebSocketRouteIs400) {
  // HTTP/2 has no Upgrade (RFC 9113 §8.6): a WebSocket is opened by an extended CONNECT (RFC 8441,
  // websocket_h2_test.cpp), so a GET is 400, not a 426 asking for headers an HTTP/2 client cannot send.
  for (const bool tls : {false, true}) {
    SCOPED_TRACE(transport(tls));
    const std::string url = std::string(tls ? "https" : "http") + "://127.0.0.1:" + std::to_string(port(tls)) + "/ws";
    std::vector<std::string> args{"-sS", "-o", "/dev/null", "-w", "%{http_code} %{http_version}", "--max-time", "10"};
    args.push_back(tls ? "--http2" : "--http2-prior-knowledge");
    if (tls) args.push_back("-k");
    args.push_back(url);
    const RunResult run = run_program("curl", args);
    EXPECT_EQ(run.out, "400 2") << run.err;
  }
}

TEST_F(WebSocketRawTest, AFrameSentWithTheHandshakeInOneWriteIsEchoed) {
  for (const bool tls : {false, true}) {
    SCOPED_TRACE(transport(tls));
    WsRawClient client(port(tls), tls);
    ASSERT_TRUE(client.send(ws_handshake("/ws") + ws_frame(kText, "early bird") + ws_frame(kBinary, "second")));
    const std::string head = client.read_http();
    ASSERT_TRUE(head.starts_with("HTTP/1.1 101 ")) << head;
    EXPECT_NE(head.find(std::string("\r\nSec-WebSocket-Accept: ") + kWsSampleAccept + "\r\n"), std::string::npos)
        << head;
    const std::optional<WsFrame> first = client.read_data_frame();
    ASSERT_TRUE(first.has_value());
    EXPECT_EQ(first->opcode, kText);
    EXPECT_EQ(first->payload, "early bird");
    const std::optional<WsFrame> second = client.read_data_frame();
    ASSERT_TRUE(second.has_value());
    EXPECT_EQ(second->opcode, kBinary);
    EXPECT_EQ(second->payload, "second");
  }
}

TEST_F(WebSocketRawTest, APipelinedGetBeforeTheUpgradeIsAnsweredFirst) {
  for (const bool tls : {false, true}) {
    SCOPED_TRACE(transport(tls));
    WsRawClient client(port(tls), tls);
    ASSERT_TRUE(client.send("GET /plaintext HTTP/1.1\r\nHost: localhost\r\n\r\n" + ws_handshake("/ws") +
                            ws_frame(kText, "after both")));
    const std::string first = client.read_http();
    ASSERT_TRUE(first.starts_with("HTTP/1.1 200 ")) << first;
    EXPECT_TRUE(first.ends_with("\r\n\r\nHello")) << first;
    const std::string second = client.read_http();
    ASSERT_TRUE(second.starts_with("HTTP/1.1 101 ")) << second;
    const std::optional<WsFrame> echo = client.read_data_frame();
    ASSERT_TRUE(echo.has_value());
    EXPECT_EQ(echo->payload, "after both");
  }
}

TEST_F(WebSocketRawTest, AnIdlePeerIsPingedAndKeptWhileItAnswers) {
  for (const bool tls : {false, true}) {
    SCOPED_TRACE(transport(tls));
    WsRawClient client(port(tls), tls);
    ASSERT_TRUE(client.handshake("/idle"));
    // ping_interval 200 ms, pong_timeout 300 ms: five pings answered keep it open well past 500 ms.
    const auto start = Clock::now();
    for (int i = 0; i < 5; ++i) {
      const auto asked = Clock::now();
      const std::optional<WsFrame> ping = client.read_frame(2s);
      ASSERT_TRUE(ping.has_value()) << "ping " << i << " never came; closed: " << client.closed();
      ASSERT_EQ(ping->opcode, kPing);
      EXPECT_GE(Clock::now() - asked, 150ms) << "pinged before the interval passed";
      ASSERT_TRUE(client.send(ws_frame(kPong, ping->payload)));
    }
    EXPECT_GE(Clock::now() - start, 900ms);
    ASSERT_TRUE(client.send(ws_frame(kText, "still here")));
    const std::optional<WsFrame> echo = client.read_data_frame();
    ASSERT_TRUE(echo.has_value()) << "dropped although every ping was answered";
    EXPECT_EQ(echo->payload, "still here");
  }
}

TEST_F(WebSocketRawTest, APeerThatNeverAnswersAPingIsDroppedAfterThePongTimeout) {
  for (const bool tls : {false, true}) {
    SCOPED_TRACE(transport(tls));
    WsRawClient client(port(tls), tls);
    ASSERT_TRUE(client.handshake("/idle"));
    const std::optional<WsFrame> ping = client.read_frame(2s);
    ASSERT_TRUE(ping.has_value());
    ASSERT_EQ(ping->opcode, kPing);
    const auto pinged = Clock::now();
    // No pong: the connection goes after pong_timeout (300 ms) without a close frame (1006, §7.1.5).
    std::optional<WsFrame> more = client.read_frame(3s);
    EXPECT_FALSE(more.has_value()) << "opcode " << int(more ? more->opcode : 0);
    EXPECT_TRUE(client.closed()) << "still open 3 s after an unanswered ping";
    const auto waited = Clock::now() - pinged;
    EXPECT_GE(waited, 250ms);
    EXPECT_LT(waited, 1500ms);
  }
}

// Sends 64 KiB binary messages without reading anything back, for at most `budget`,
// stopping early if the server ends the connection. Returns the bytes the kernel took.
std::size_t flood_without_reading(WsRawClient& client, std::size_t total, std::chrono::milliseconds budget,
                                  Clock::time_point* dropped_at) {
  const std::string frame = ws_frame(kBinary, std::string(64 * 1024, 'z'));
  const auto deadline = Clock::now() + budget;
  std::size_t sent_total = 0;
  while (sent_total < total && Clock::now() < deadline) {
    std::size_t sent = 0;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    const auto send_deadline = Clock::now() + std::max(left, 1ms);
    const bool whole = client.send(frame, std::max(left, 1ms), &sent);
    sent_total += sent;
    // Why compare with send's own deadline: a send that ran out of time is TCP's back-pressure, not a drop.
    if (client.peer_hung_up() || (!whole && Clock::now() < send_deadline)) {
      if (dropped_at != nullptr) *dropped_at = Clock::now();
      break;
    }
  }
  return sent_total;
}

TEST_F(WebSocketRawTest, AClientThatNeverReadsCannotMakeTheServerGrow) {
  constexpr std::size_t kFlood = 64u << 20;
  for (const bool tls : {false, true}) {
    SCOPED_TRACE(transport(tls));
    const long before_kib = proc_status_kib(server().pid(), "VmRSS");
    ASSERT_GT(before_kib, 0);
    WsRawClient client(port(tls), tls);
    ASSERT_TRUE(client.handshake("/patient"));
    Clock::time_point dropped{};
    const std::size_t sent = flood_without_reading(client, kFlood, 4s, &dropped);
    const long after_kib = proc_status_kib(server().pid(), "VmRSS");
    // Back-pressure: the echo handler waits on its sends, its inbox fills, the server stops reading,
    // and TCP stops the client long before 64 MiB (without it the server would take them all).
    EXPECT_LT(sent, kFlood) << "the server read everything of a client that reads nothing";
    EXPECT_EQ(dropped, Clock::time_point{}) << "dropped before its 30 s close_timeout";
    // Why not under sanitizers: they quarantine freed memory, so RSS says nothing there (the
    // back-pressure itself is asserted above in every build).
    if (!binary_is_sanitized()) {
      EXPECT_LT(after_kib - before_kib, 16 * 1024) << "sent " << sent << " bytes";
    }
    RecordProperty(std::string(transport(tls)) + "_sent_bytes", std::to_string(sent));
    RecordProperty(std::string(transport(tls)) + "_rss_growth_kib", std::to_string(after_kib - before_kib));
  }
}

// 100 KB of zeros, compressed raw (permessage-deflate's way: no zlib header, no final empty block's tail).
std::string deflated_zeros() {
  const std::string zeros(100'000, '\0');
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, 9, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(1024, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(zeros.data()));
  z.avail_in = static_cast<uInt>(zeros.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&z, Z_SYNC_FLUSH), Z_OK);
  out.resize(out.size() - z.avail_out);
  deflateEnd(&z);
  EXPECT_EQ(out.substr(out.size() - 4), std::string("\0\0\xff\xff", 4));
  out.resize(out.size() - 4);  // RFC 7692 §7.2.1
  return out;
}

// `data` compressed as permessage-deflate sends a message (raw deflate, sync-flushed, the tail cut).
std::string deflate_message(const std::string& data) {
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, 6, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&z, data.size()) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&z, Z_SYNC_FLUSH), Z_OK);
  out.resize(out.size() - z.avail_out);
  deflateEnd(&z);
  out.resize(out.size() - 4);  // RFC 7692 §7.2.1
  return out;
}

// A message as permessage-deflate received it, inflated (the tail put back).
std::string inflate_message(std::string data) {
  data.append("\0\0\xff\xff", 4);
  z_stream z{};
  EXPECT_EQ(inflateInit2(&z, -15), Z_OK);
  std::string out;
  char piece[65536];
  z.next_in = reinterpret_cast<Bytef*>(data.data());
  z.avail_in = static_cast<uInt>(data.size());
  int status = Z_OK;
  while (status == Z_OK && (z.avail_in > 0 || z.avail_out == 0)) {
    z.next_out = reinterpret_cast<Bytef*>(piece);
    z.avail_out = sizeof piece;
    status = inflate(&z, Z_SYNC_FLUSH);
    out.append(piece, sizeof piece - z.avail_out);
  }
  inflateEnd(&z);
  return out;
}

// max_message_bytes is the size of the message the handler receives: random bytes just under the
// 1 MiB default deflate to a frame a little over it, which must be taken (it was 1009).
TEST_F(WebSocketRawTest, ARandomMessageJustUnderTheLimitIsTakenThoughItsDeflatedFrameIsLonger) {
  std::string message(1'048'560, '\0');
  std::uint32_t state = 2463534242u;
  for (char& c : message) {
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    c = static_cast<char>(state);
  }
  const std::string deflated = deflate_message(message);
  ASSERT_GT(deflated.size(), 1'048'576u) << "the case needs a frame over the limit";
  WsRawClient client(port(false), false);
  ASSERT_TRUE(client.handshake("/ws", "Sec-WebSocket-Extensions: permessage-deflate\r\n"));
  ASSERT_TRUE(client.send(ws_frame(kBinary, deflated, true, true, 0x40), 10s));
  const std::optional<WsFrame> echo = client.read_data_frame(10s);
  ASSERT_TRUE(echo.has_value()) << "closed: " << client.closed();
  ASSERT_NE(echo->opcode, kClose) << echo->close_code() << " " << echo->close_reason();
  const std::string got = echo->rsv != 0 ? inflate_message(echo->payload) : echo->payload;
  EXPECT_TRUE(got == message) << "echoed " << got.size() << " bytes";
  // One byte past the limit, once inflated, is still refused.
  WsRawClient over(port(false), false);
  ASSERT_TRUE(over.handshake("/ws", "Sec-WebSocket-Extensions: permessage-deflate\r\n"));
  ASSERT_TRUE(over.send(ws_frame(kBinary, deflate_message(message + std::string(17, 'x')), true, true, 0x40), 10s));
  expect_close_then_end(over, 1009);
}

// A read full of small compressed messages that each inflate to 100 KB: the server parses only
// as many as its inbox holds (receive_queue_messages, 16) while the handler does not receive, so
// one read cannot make it inflate hundreds of them (a few KB in, tens of MB held).
TEST_F(WebSocketRawTest, ManyCompressedMessagesInOneReadAreInflatedOnlyAsTheInboxHasRoom) {
  const std::string bomb = ws_frame(0x2, deflated_zeros(), true, true, 0x40);
  ASSERT_LT(bomb.size(), 200u);
  // Why a difference: the server is shared, so earlier tests' messages may be in the count
  // (run alone, the listener has no sample before its first WebSocket: 0).
  const auto received = [](bool must_be_there) {
    const std::string url = "http://127.0.0.1:" + std::to_string(port(false)) + "/metrics";
    const std::string metrics = run_program("curl", {"-sS", "--max-time", "5", url}).out;
    const std::string key = "tiffany_websocket_messages_total{listener=\"ws\",direction=\"received\"} ";
    const std::size_t at = metrics.find(key);
    if (must_be_there) {
      EXPECT_NE(at, std::string::npos) << metrics;
    }
    return at == std::string::npos ? 0 : std::stoi(metrics.substr(at + key.size()));
  };
  const int before = received(false);
  WsRawClient client(port(false), false);
  ASSERT_TRUE(client.handshake("/deaf", "Sec-WebSocket-Extensions: permessage-deflate\r\n"));
  std::string bombs;
  for (int i = 0; i < 300; ++i) bombs += bomb;  // ~60 KB: one or a few reads
  ASSERT_TRUE(client.send(bombs));
  std::this_thread::sleep_for(500ms);  // the handler sleeps 2 s without receiving
  EXPECT_EQ(received(true) - before, 16);  // the inbox full, the rest held
}

TEST_F(WebSocketRawTest, AClientThatStopsReadingIsDroppedOnceTheServersWritesStall) {
  for (const bool tls : {false, true}) {
    SCOPED_TRACE(transport(tls));
    WsRawClient client(port(tls), tls);
    ASSERT_TRUE(client.handshake("/stall"));
    // close_timeout 500 ms: a write that makes no progress for that long ends the connection.
    const auto start = Clock::now();
    Clock::time_point dropped{};
    flood_without_reading(client, 256u << 20, 10s, &dropped);
    if (dropped == Clock::time_point{}) {
      // The client's sends stopped (TCP) before the drop showed: wait for it without reading.
      const auto limit = Clock::now() + 5s;
      while (!client.peer_hung_up() && Clock::now() < limit) std::this_thread::sleep_for(20ms);
      if (client.peer_hung_up()) dropped = Clock::now();
    }
    ASSERT_NE(dropped, Clock::time_point{}) << "never dropped";
    EXPECT_LT(dropped - start, 8s);
  }
}

TEST(WebSocketDrainTest, ShuttingDownClosesOpenWebSocketsWith1001AndExitsCleanly) {
  TempDir dir;
  const TestCertificate cert = write_test_certificate(dir.path(), "site", "localhost", {"localhost"});
  ServerProcess server(websocket_config(cert.cert_file, cert.key_file, 3000));
  const int plain = server.port_of("ws");
  const int tls = server.port_of("wss");
  WsRawClient a(plain, false);
  WsRawClient b(tls, true);
  ASSERT_TRUE(a.handshake("/ws"));
  ASSERT_TRUE(b.handshake("/ws"));
  for (WsRawClient* client : {&a, &b}) {
    ASSERT_TRUE(client->send(ws_frame(kText, "open")));
    const std::optional<WsFrame> echo = client->read_data_frame();
    ASSERT_TRUE(echo.has_value());
  }
  const auto signaled = Clock::now();
  server.send_signal(SIGTERM);
  for (WsRawClient* client : {&a, &b}) {
    std::optional<WsFrame> frame = client->read_frame(3s);
    ASSERT_TRUE(frame.has_value()) << "no close frame on drain";
    ASSERT_EQ(frame->opcode, kClose);
    EXPECT_EQ(frame->close_code(), 1001);
    ASSERT_TRUE(client->send(ws_close_frame(1001)));
    EXPECT_TRUE(client->wait_closed(3s));
  }
  EXPECT_EQ(server.wait_for_exit(5s), 0) << server.err();
  EXPECT_LT(Clock::now() - signaled, 3s) << "the drain waited out its timeout instead of ending with the sockets";
}

TEST(WebSocketDrainTest, AHandshakeAcceptedOnceTheDrainHasBegunIsRefused503) {
  TempDir dir;
  const TestCertificate cert = write_test_certificate(dir.path(), "site", "localhost", {"localhost"});
  ServerProcess server(websocket_config(cert.cert_file, cert.key_file, 3000));
  const int ports[] = {server.port_of("ws"), server.port_of("wss")};
  // wsprobe.late sleeps 500 ms before accept_websocket: the drain begins during the sleep.
  WsRawClient plain(ports[0], false);
  WsRawClient tls(ports[1], true);
  ASSERT_TRUE(plain.send(ws_handshake("/late")));
  ASSERT_TRUE(tls.send(ws_handshake("/late")));
  std::this_thread::sleep_for(150ms);
  server.send_signal(SIGTERM);
  for (WsRawClient* client : {&plain, &tls}) {
    const std::string response = client->read_http(3s);
    EXPECT_TRUE(response.starts_with("HTTP/1.1 503 ")) << response;
    EXPECT_EQ(response.find("Sec-WebSocket-Accept"), std::string::npos) << response;
    EXPECT_EQ(response.find("\r\nUpgrade:"), std::string::npos) << response;
    EXPECT_TRUE(client->wait_closed(3s));
  }
  EXPECT_EQ(server.wait_for_exit(5s), 0) << server.err();
}

}  // namespace
}  // namespace tiffany::testing
