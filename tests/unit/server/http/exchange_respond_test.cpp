// Exchange::respond: one request from its head to its log line, told to a wire of the test's own.
#include "server/http/exchange.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <tiffany/coro/scheduler.hpp>
#include <tiffany/coro/task_canceled.hpp>

#include "handlers/engine/metrics.hpp"

namespace tiffany::http {
namespace {

// Writes what the exchange asks of it as lines ("whole 200 hello"); says
// what the test sets of the handler's end.
class VerdictWire final : public ResponseWire {
 public:
  Task<Head> send_head(const Response& response, std::optional<std::uint64_t>, bool, bool) override {
    calls.push_back("head " + std::to_string(response.status));
    status = response.status;
    co_return Head::sent;
  }
  Task<Delivery> write_piece(std::string_view bytes) override {
    if (!bytes.empty()) calls.push_back("piece " + std::string(bytes));
    co_return Delivery::sent;
  }
  bool write_closed() const noexcept override { return false; }
  Task<WebSocket*> upgrade_to_websocket(Response&, websocket::UpgradeTerms, WebSocketOptions) override {
    co_return nullptr;
  }
  bool websocket_by_connect() const noexcept override { return by_connect; }

  void handler_routed() override { calls.push_back("routed"); }
  void handler_ended(HandlerEnd& end) override {
    calls.push_back("ended");
    end.websocket = websocket;
    end.client_gone = client_gone;
    end.body = body;
  }
  bool cancel_unwinds() const noexcept override { return unwinds; }
  Task<void> after_client_gone(const std::exception_ptr& failure) override {
    calls.push_back(failure ? "client gone, failed" : "client gone");
    co_return;
  }
  void send_whole(const Response& response, bool encoded) override {
    std::string line = "whole " + std::to_string(response.status);
    if (!response.body.empty()) line += " " + response.body;
    if (encoded) line += " encoded";
    calls.push_back(line);
    status = response.status;
  }
  void send_error(const Response& error) override {
    calls.push_back("error " + error.body);
    status = error.status;
  }
  void end_stream(std::string_view tail, bool as_declared) override {
    calls.push_back(std::string("end") + (tail.empty() ? "" : " with a tail") +
                    (as_declared ? "" : ", not as declared"));
  }
  void cut() noexcept override { calls.push_back("cut"); }
  Task<void> end_websocket(bool failed) override {
    calls.push_back(failed ? "end websocket, failed" : "end websocket");
    co_return;
  }
  Sent sent() const noexcept override { return Sent{logged, status, 0}; }

  std::vector<std::string> calls;
  bool by_connect = false;
  bool websocket = false;
  bool client_gone = false;
  BodyStatus body = BodyStatus::end;
  bool unwinds = false;
  bool logged = true;
  int status = 0;  // of what went
};

// A handler that runs the test's coroutine.
class ScriptedHandler final : public Handler {
 public:
  explicit ScriptedHandler(std::function<Task<void>(Request&, Response&)> script) : script_(std::move(script)) {}
  Task<void> handle(Request& request, Response& response) override { return script_(request, response); }

 private:
  std::function<Task<void>(Request&, Response&)> script_;
};

class ExchangeRespondTest : public ::testing::Test {
 protected:
  ExchangeRespondTest() {
    site_.unmatched = &unmatched_;
    response_.attach(&exchange_);
  }

  // Routes GET /it to `script`, counted in route_.
  void route(std::function<Task<void>(Request&, Response&)> script) {
    site_.router.add({"GET"}, "/it", std::make_shared<ScriptedHandler>(std::move(script)), "scripted", &route_);
  }
  // Routes GET /it to a handler that sees its task canceled.
  void route_a_canceled_handler() {
    route([](Request&, Response&) -> Task<void> {
      throw TaskCanceled();
      co_return;
    });
  }
  // Answers a request for `path` through the exchange; "canceled" when
  // respond() ended with TaskCanceled, else "".
  std::string respond(const char* method = "GET", const char* path = "/it") {
    request_.method = method;
    request_.path = path;
    std::string ended;
    auto task = [&]() -> Task<void> {
      Deadline deadline = Deadline::unarmed();
      try {
        co_await exchange_.respond(request_, response_, deadline);
      } catch (const TaskCanceled&) {
        ended = "canceled";
      }
    };
    (void)scheduler_.spawn(task());
    scheduler_.run();
    return ended;
  }
  std::uint64_t counted(const RouteMetrics& metrics, int status_class) const {
    return metrics.by_class[static_cast<std::size_t>(status_class - 1)].load();
  }

  using Calls = std::vector<std::string>;
  Scheduler scheduler_;
  HttpSite site_;
  RouteMetrics unmatched_{"test", ""};
  RouteMetrics route_{"test", "/it"};
  VerdictWire wire_;
  Exchange exchange_{site_, wire_};
  Request request_;
  Response response_;
};

TEST_F(ExchangeRespondTest, OptionsAsteriskIsAnswered200WithNoRoutingAndCounted) {
  EXPECT_EQ(respond("OPTIONS", "*"), "");
  EXPECT_EQ(wire_.calls, (Calls{"whole 200"}));
  EXPECT_EQ(counted(unmatched_, 2), 1u);
  EXPECT_TRUE(exchange_.request_id().empty());  // finished: ready for the next request
}

TEST_F(ExchangeRespondTest, APathNoRouteMatchesGetsThePlain404AndNoHandlerRuns) {
  route([](Request&, Response&) -> Task<void> { co_return; });
  respond("GET", "/elsewhere");
  EXPECT_EQ(wire_.calls, (Calls{"whole 404 404 Not Found\n"}));
  EXPECT_EQ(counted(unmatched_, 4), 1u);
}

TEST_F(ExchangeRespondTest, ARoutedHandlersResponseGoesWholeAndIsCountedOnItsRoute) {
  route([](Request&, Response& response) -> Task<void> {
    response.body = "hello";
    co_return;
  });
  respond();
  EXPECT_EQ(wire_.calls, (Calls{"routed", "ended", "whole 200 hello"}));
  EXPECT_EQ(counted(route_, 2), 1u);
}

TEST_F(ExchangeRespondTest, AHandlerThatThrowsIsAnsweredWithThePlain500) {
  route([](Request&, Response& response) -> Task<void> {
    response.body = "never sent";
    throw std::runtime_error("boom");
    co_return;
  });
  respond();
  EXPECT_EQ(wire_.calls, (Calls{"routed", "ended", "error 500 Internal Server Error\n"}));
  EXPECT_EQ(counted(route_, 5), 1u);
  EXPECT_EQ(response_.headers.get("Content-Type").value_or(""), "text/plain; charset=utf-8");
}

TEST_F(ExchangeRespondTest, ABodyThatFailedToArriveIsTheAnswer) {
  route([](Request&, Response&) -> Task<void> { co_return; });
  wire_.body = BodyStatus::too_large;
  respond();
  EXPECT_EQ(wire_.calls, (Calls{"routed", "ended", "error 413 Content Too Large\n"}));
}

TEST_F(ExchangeRespondTest, AStreamedResponseEndsAndSaysWhetherItSentWhatItDeclared) {
  std::uint64_t declared = 10;
  route([&declared](Request&, Response& response) -> Task<void> {
    response.set_content_length(declared);
    (void)co_await response.write("hello");
  });
  respond();
  EXPECT_EQ(wire_.calls, (Calls{"routed", "head 200", "piece hello", "ended", "end, not as declared"}));

  wire_.calls.clear();
  response_.clear();
  declared = 5;
  respond();
  EXPECT_EQ(wire_.calls, (Calls{"routed", "head 200", "piece hello", "ended", "end"}));
}

TEST_F(ExchangeRespondTest, AResponseCutShortIsCut) {
  route([](Request&, Response& response) -> Task<void> {
    (void)co_await response.write("half");
    response.cut("the upstream broke off");
  });
  respond();
  EXPECT_EQ(wire_.calls, (Calls{"routed", "head 200", "piece half", "ended", "cut"}));
}

TEST_F(ExchangeRespondTest, A2xxToAnExtendedConnectThatTookNoWebSocketIs400) {
  route([](Request&, Response& response) -> Task<void> {
    response.body = "fine";
    co_return;
  });
  wire_.by_connect = true;
  respond();
  EXPECT_EQ(wire_.calls, (Calls{"routed", "ended", "whole 400 this resource does not speak WebSocket\n"}));
}

TEST_F(ExchangeRespondTest, AWebSocketIsEndedByTheWire) {
  route([](Request&, Response&) -> Task<void> { co_return; });
  wire_.websocket = true;
  respond();
  EXPECT_EQ(wire_.calls, (Calls{"routed", "ended", "end websocket"}));
}

TEST_F(ExchangeRespondTest, AClientThatWentIsLeftToTheWireAndNothingIsJudged) {
  route_a_canceled_handler();
  wire_.client_gone = true;
  EXPECT_EQ(respond(), "");  // a cancellation that is the handler's failure on this wire
  EXPECT_EQ(wire_.calls, (Calls{"routed", "ended", "client gone, failed"}));
}

TEST_F(ExchangeRespondTest, ACancellationThatUnwindsLeavesUnansweredAndUnlogged) {
  route_a_canceled_handler();
  wire_.unwinds = true;
  EXPECT_EQ(respond(), "canceled");
  EXPECT_EQ(wire_.calls, (Calls{"routed", "ended"}));
  EXPECT_EQ(counted(route_, 2) + counted(route_, 5), 0u);

  wire_.calls.clear();
  wire_.websocket = true;  // ... but only once the WebSocket it took has ended
  EXPECT_EQ(respond(), "canceled");
  EXPECT_EQ(wire_.calls, (Calls{"routed", "ended", "end websocket"}));
}

TEST_F(ExchangeRespondTest, ACancellationIsAFailureWhereItDoesNotUnwind) {
  route_a_canceled_handler();
  EXPECT_EQ(respond(), "");
  EXPECT_EQ(wire_.calls, (Calls{"routed", "ended", "error 500 Internal Server Error\n"}));
}

TEST_F(ExchangeRespondTest, ARequestTheWireDoesNotLogIsNotCounted) {
  route([](Request&, Response&) -> Task<void> { co_return; });
  wire_.logged = false;
  respond();
  EXPECT_EQ(counted(route_, 2), 0u);
  EXPECT_TRUE(exchange_.request_id().empty());  // reset all the same
}

TEST_F(ExchangeRespondTest, APlainErrorIsItsStatusAndReasonInPlainText) {
  Response response;
  response.status = 201;
  response.body = "the handler's";
  response.headers.set("ETag", "\"x\"");
  Exchange::plain_error(response, 503);
  EXPECT_EQ(response.status, 503);
  EXPECT_EQ(response.body, "503 Service Unavailable\n");
  EXPECT_FALSE(response.headers.get("ETag").has_value());
  EXPECT_EQ(response.headers.get("Content-Type").value_or(""), "text/plain; charset=utf-8");
}

}  // namespace
}  // namespace tiffany::http
