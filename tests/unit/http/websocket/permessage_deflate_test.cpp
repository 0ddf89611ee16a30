// permessage-deflate (RFC 7692): the negotiation's choices and refusals, and messages through
// MessageDeflater and MessageInflater (round trips, context takeover, the size limit, bad input).
#include <gtest/gtest.h>

#include <zlib.h>

#include <string>

#include <tiffany/http/headers.hpp>
#include <tiffany/http/websocket.hpp>

#include "http/engine/websocket/deflate_negotiation.hpp"
#include "http/engine/websocket/message_deflate.hpp"

namespace tiffany::http::websocket {
namespace {

std::optional<DeflateAgreement> negotiate(std::string_view offers, WebSocketCompression settings = {}) {
  Headers headers;
  headers.add("Sec-WebSocket-Extensions", offers);
  return negotiate_deflate(headers, settings);
}

TEST(PermessageDeflateNegotiation, ByDefaultNeitherSideKeepsItsWindow) {
  const auto agreed = negotiate("permessage-deflate; client_max_window_bits");  // what browsers send
  ASSERT_TRUE(agreed);
  EXPECT_EQ(agreed->response, "permessage-deflate; server_no_context_takeover; client_no_context_takeover");
  EXPECT_FALSE(agreed->server_context_takeover);
  EXPECT_FALSE(agreed->client_context_takeover);
  EXPECT_EQ(agreed->server_window_bits, 15);
}

TEST(PermessageDeflateNegotiation, WithContextTakeoverTheClientsRequestsAreHonoured) {
  WebSocketCompression keep;
  keep.context_takeover = true;
  keep.window_bits = 12;
  auto agreed = negotiate("permessage-deflate; client_max_window_bits", keep);
  ASSERT_TRUE(agreed);
  EXPECT_TRUE(agreed->server_context_takeover);
  EXPECT_TRUE(agreed->client_context_takeover);
  EXPECT_EQ(agreed->response, "permessage-deflate; server_max_window_bits=12; client_max_window_bits=12");
  agreed = negotiate("permessage-deflate; server_no_context_takeover; server_max_window_bits=10", keep);
  ASSERT_TRUE(agreed);
  EXPECT_FALSE(agreed->server_context_takeover);
  EXPECT_TRUE(agreed->client_context_takeover);
  EXPECT_EQ(agreed->server_window_bits, 10);
  EXPECT_EQ(agreed->client_window_bits, 15) << "a client that did not offer client_max_window_bits may use any window";
  EXPECT_EQ(agreed->response, "permessage-deflate; server_no_context_takeover; server_max_window_bits=10");
}

TEST(PermessageDeflateNegotiation, AnInvalidOfferIsDeclinedAndTheNextOneTaken) {
  for (const char* bad : {"permessage-deflate; server_max_window_bits", "permessage-deflate; server_max_window_bits=16",
                          "permessage-deflate; server_max_window_bits=7", "permessage-deflate; client_max_window_bits=0x9",
                          "permessage-deflate; server_no_context_takeover; server_no_context_takeover",
                          "permessage-deflate; server_no_context_takeover=1", "permessage-deflate; mystery",
                          "permessage-deflate;", "permessage-deflate; server_max_window_bits=8"}) {
    EXPECT_FALSE(negotiate(bad)) << bad;
    const auto fallback = negotiate(std::string(bad) + ", permessage-deflate");
    ASSERT_TRUE(fallback) << bad;
    EXPECT_EQ(fallback->server_window_bits, 15) << bad;
  }
  EXPECT_TRUE(negotiate("permessage-deflate; server_max_window_bits=\"10\"")) << "a quoted value";
  EXPECT_FALSE(negotiate("x-webkit-deflate-frame")) << "another extension";
  WebSocketCompression off;
  off.enabled = false;
  EXPECT_FALSE(negotiate("permessage-deflate", off));
}

std::string deflate_roundtrip(MessageDeflater& deflater, MessageInflater& inflater, const std::string& message) {
  std::string compressed;
  deflater.compress(message, compressed);
  std::string back;
  EXPECT_EQ(inflater.inflate(compressed, 1 << 24, back), MessageInflater::Result::ok);
  return back;
}

TEST(PermessageDeflateCodec, MessagesRoundTripWithAndWithoutContextTakeover) {
  for (const bool keep : {false, true}) {
    MessageDeflater deflater(15, 4, keep);
    MessageInflater inflater(15, keep);
    for (const std::string& message : {std::string("Hello"), std::string(), std::string(), std::string(100000, 'a'),
                                       std::string("{\"k\": 1, \"v\": \"tiffany\"}")}) {
      EXPECT_TRUE(deflate_roundtrip(deflater, inflater, message) == message) << keep << " " << message.size();
    }
  }
}

TEST(PermessageDeflateCodec, AnEmptyMessageIsOneEmptyStoredBlock) {
  // §7.2.3.6; and with context takeover after another message, when zlib has nothing new to write.
  MessageDeflater keeping(15, 4, true);
  std::string out;
  keeping.compress("Hello", out);
  keeping.compress("", out);
  EXPECT_EQ(out, std::string(1, '\0'));
  MessageDeflater::shared(15, 4).compress("", out);
  EXPECT_EQ(out, std::string(1, '\0'));
}

TEST(PermessageDeflateCodec, ContextTakeoverMakesARepeatedMessageSmaller) {
  MessageDeflater keeping(15, 4, true);
  MessageDeflater fresh(15, 4, false);
  const std::string message = "a chat message that repeats itself, as chat messages do";
  std::string first, second, alone;
  keeping.compress(message, first);
  keeping.compress(message, second);
  fresh.compress(message, alone);
  fresh.compress(message, alone);
  EXPECT_LT(second.size(), first.size() / 2);
  EXPECT_EQ(alone.size(), first.size()) << "without context takeover every message starts afresh";
}

TEST(PermessageDeflateCodec, TheRfcsHelloExample) {
  // RFC 7692 §7.2.3.1: "Hello" compressed without context takeover.
  const std::string hello("\xf2\x48\xcd\xc9\xc9\x07\x00", 7);
  std::string out;
  EXPECT_EQ(MessageInflater::shared().inflate(hello, 100, out), MessageInflater::Result::ok);
  EXPECT_EQ(out, "Hello");
  // §7.2.3.3: with no compression (BTYPE 00).
  const std::string stored("\x00\x05\x00\xfa\xff\x48\x65\x6c\x6c\x6f\x00", 11);
  EXPECT_EQ(MessageInflater::shared().inflate(stored, 100, out), MessageInflater::Result::ok);
  EXPECT_EQ(out, "Hello");
  // §7.2.3.4: a block with BFINAL set.
  const std::string final_block("\xf3\x48\xcd\xc9\xc9\x07\x00\x00", 8);
  EXPECT_EQ(MessageInflater::shared().inflate(final_block, 100, out), MessageInflater::Result::ok);
  EXPECT_EQ(out, "Hello");
}

TEST(PermessageDeflateCodec, InflatingStopsAtTheLimitSoABombCostsNothing) {
  MessageDeflater deflater(15, 9, false);
  std::string bomb;
  deflater.compress(std::string(10'000'000, '\0'), bomb);
  ASSERT_LT(bomb.size(), 20'000u);
  std::string out;
  EXPECT_EQ(MessageInflater::shared().inflate(bomb, 65'536, out), MessageInflater::Result::too_big);
  EXPECT_LE(out.capacity(), 2 * 65'536u) << "inflated no further than the limit";
  EXPECT_EQ(MessageInflater::shared().inflate(bomb, 10'000'000, out), MessageInflater::Result::ok)
      << "exactly at the limit is fine, and the shared inflater recovered from the refusal";
  EXPECT_EQ(out.size(), 10'000'000u);
}

TEST(PermessageDeflateCodec, GarbageIsCorruptNotACrash) {
  std::string out;
  EXPECT_EQ(MessageInflater::shared().inflate(std::string("\xff\xff\xff\xff\xff", 5), 100, out),
            MessageInflater::Result::corrupt);
  EXPECT_EQ(MessageInflater::shared().inflate("Hello", 100, out), MessageInflater::Result::corrupt);
  std::string hello;
  MessageDeflater::shared(15, 4).compress("Hello", hello);
  EXPECT_EQ(MessageInflater::shared().inflate(hello, 100, out), MessageInflater::Result::ok) << "and recovers";
  EXPECT_EQ(out, "Hello");
}

}  // namespace
}  // namespace tiffany::http::websocket
