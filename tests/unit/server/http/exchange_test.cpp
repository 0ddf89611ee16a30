// Exchange::judge: what every protocol does once the handler ended, in one table.
#include "server/http/exchange.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "unit/server/http/verdictless_wire.hpp"

namespace tiffany::http {
namespace {

class ExchangeJudgeTest : public ::testing::Test {
 protected:
  // "answer", "error 503", "cut", "unanswered" or "end_websocket".
  std::string judge(const HandlerEnd& end, bool head_out = false, const std::string& cut = "") {
    Response response;
    if (head_out) response.mark_head_sent();
    if (!cut.empty()) response.cut(cut);
    const Judgment judgment = exchange_.judge(request_, response, end);
    switch (judgment.verdict) {
      case Verdict::answer: return "answer";
      case Verdict::error: return "error " + std::to_string(judgment.status);
      case Verdict::cut: return "cut";
      case Verdict::unanswered: return "unanswered";
      case Verdict::end_websocket: return "end_websocket";
    }
    return "?";
  }
  static HandlerEnd threw() {
    HandlerEnd end;
    end.failure = std::make_exception_ptr(std::runtime_error("boom"));
    return end;
  }
  static HandlerEnd timed_out() {
    HandlerEnd end;
    end.timed_out = true;
    return end;
  }
  static HandlerEnd body(BodyStatus status, int error_status = 0) {
    HandlerEnd end;
    end.body = status;
    end.body_error_status = error_status;
    return end;
  }

  // Judging writes nothing: a wire that is never used.
  class NoWire final : public testing::VerdictlessWire {
   public:
    Task<Head> send_head(const Response&, std::optional<std::uint64_t>, bool, bool) override { co_return Head::refused; }
    Task<Delivery> write_piece(std::string_view) override { co_return Delivery::closed; }
    bool write_closed() const noexcept override { return true; }
  };

  HttpSite site_;
  NoWire wire_;
  Exchange exchange_{site_, wire_, " (HTTP/2)"};
  Request request_;
};

TEST_F(ExchangeJudgeTest, AHandlerThatReturnedIsAnswered) {
  EXPECT_EQ(judge({}), "answer");
  EXPECT_EQ(judge({}, true), "answer");
  EXPECT_EQ(judge(body(BodyStatus::data)), "answer");  // it left some unread: the protocol settles that
}

TEST_F(ExchangeJudgeTest, ATimeOutIs503AndAFailure500UntilTheHeadIsOut) {
  EXPECT_EQ(judge(timed_out()), "error 503");
  EXPECT_EQ(judge(threw()), "error 500");
  EXPECT_EQ(judge(timed_out(), true), "cut");
  EXPECT_EQ(judge(threw(), true), "cut");
}

TEST_F(ExchangeJudgeTest, ABodyThatFailedIsTheAnswerWhateverTheHandlerDid) {
  EXPECT_EQ(judge(body(BodyStatus::too_large)), "error 413");
  EXPECT_EQ(judge(body(BodyStatus::timed_out)), "error 408");
  EXPECT_EQ(judge(body(BodyStatus::bad_framing)), "error 400");
  EXPECT_EQ(judge(body(BodyStatus::bad_framing, 501)), "error 501");  // the protocol's more precise answer
  HandlerEnd threw_on_it = threw();
  threw_on_it.body = BodyStatus::too_large;
  EXPECT_EQ(judge(threw_on_it), "error 413");
  EXPECT_EQ(judge(body(BodyStatus::too_large), true), "cut");
  EXPECT_EQ(judge(body(BodyStatus::peer_gone)), "unanswered");  // nobody reads an answer
  EXPECT_EQ(judge(body(BodyStatus::peer_gone), true), "unanswered");
}

TEST_F(ExchangeJudgeTest, AWebSocketIsEndedWhateverElseHappened) {
  HandlerEnd end = threw();
  end.websocket = true;
  end.body = BodyStatus::bad_framing;
  EXPECT_EQ(judge(end, true), "end_websocket");
  HandlerEnd timed_out_websocket = timed_out();
  timed_out_websocket.websocket = true;
  EXPECT_EQ(judge(timed_out_websocket), "end_websocket");
}

// Response::cut: the handler ended well but its response cannot (an upstream broke off mid-body).
TEST_F(ExchangeJudgeTest, AResponseCutShortIsCutAndLoggedWithItsReason) {
  request_.method = "GET";
  request_.path = "/big";
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(judge({}, true, "the upstream response was cut: reset"), "cut");
  EXPECT_EQ(judge({}, false, "before the head"), "cut");
  EXPECT_EQ(judge(threw(), true, "and it threw"), "cut");  // the failure is the one logged
  const std::string log = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(log.find("cut its response to GET /big short (HTTP/2): the upstream response was cut: reset"),
            std::string::npos)
      << log;
  EXPECT_EQ(log.find("and it threw"), std::string::npos) << log;
}

TEST_F(ExchangeJudgeTest, LogLinesNameTheProtocol) {
  request_.method = "GET";
  request_.path = "/boom";
  ::testing::internal::CaptureStderr();
  (void)judge(threw());
  (void)judge(timed_out());
  const std::string log = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(log.find("failed on GET /boom (HTTP/2): boom"), std::string::npos) << log;
  EXPECT_NE(log.find("timed out on GET /boom after 0 ms (HTTP/2)"), std::string::npos) << log;
}

}  // namespace
}  // namespace tiffany::http
