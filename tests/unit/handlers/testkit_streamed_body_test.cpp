// The test kit drives a streaming handler: a body in pieces (ScriptedBody), its end or failure, a whole body too.
#include <gtest/gtest.h>

#include <tiffany/handlers/testkit/plugin_harness.hpp>

namespace tiffany::testkit {
namespace {

using namespace std::chrono_literals;

// Counts the pieces and bytes it reads; answers how the body ended.
class Counter final : public Handler {
 public:
  bool streams_request_body() const noexcept override { return true; }
  Task<void> handle(http::Request& request, http::Response& response) override {
    std::size_t pieces = 0;
    std::string seen;
    http::BodyChunk chunk;
    for (;;) {
      chunk = co_await request.body_reader().read();
      if (!chunk) break;
      ++pieces;
      seen += chunk.bytes;
    }
    response.status = chunk.failed() ? 400 : 200;
    response.body = std::to_string(pieces) + " " + seen;
  }
};

TEST(TestKitStreamedBody, AHandlerReadsABodyGivenInPiecesOneReadAtATime) {
  PluginHarness harness;
  Counter handler;
  const Outcome outcome = harness.run(handler, RequestBuilder("POST", "/up").body_in_pieces({"ab", "", "cde", "f"}));
  EXPECT_EQ(outcome.status(), 200);
  EXPECT_EQ(outcome.body(), "3 abcdef");  // the empty piece is never handed out
}

TEST(TestKitStreamedBody, AFailureAfterThePiecesReachesTheHandler) {
  PluginHarness harness;
  Counter handler;
  const Outcome outcome =
      harness.run(handler, RequestBuilder("POST", "/up").body_in_pieces({"ab"}, http::BodyStatus::too_large));
  EXPECT_EQ(outcome.status(), 400);
  EXPECT_EQ(outcome.body(), "1 ab");
}

TEST(TestKitStreamedBody, AWholeBodyIsOnePieceForAStreamingHandler) {
  PluginHarness harness;
  Counter handler;
  EXPECT_EQ(harness.run(handler, RequestBuilder("POST", "/up").body("whole")).body(), "1 whole");
  EXPECT_EQ(harness.run(handler, RequestBuilder("POST", "/up")).body(), "0 ");
}

TEST(TestKitStreamedBody, AScriptedBodyWaitsItsGapOfVirtualTimeAndCountsReads) {
  PluginHarness harness;
  Counter handler;
  ScriptedBody body({"x", "y"}, http::BodyStatus::end, 50ms);
  http::Request request = RequestBuilder("POST", "/up").build();
  request.body_reader().attach(&body);
  const auto started = harness.clock().now();
  const Outcome outcome = harness.run(handler, request);
  EXPECT_EQ(outcome.body(), "2 xy");
  EXPECT_EQ(body.reads(), 3u);
  EXPECT_TRUE(body.finished());
  EXPECT_GE(harness.clock().now() - started, 150ms);
}

}  // namespace
}  // namespace tiffany::testkit
