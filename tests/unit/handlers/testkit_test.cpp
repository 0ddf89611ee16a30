// The SDK test kit in-tree: a handler run on virtual time with its
// plugin's lifecycle, streamed bodies, exceptions and the recorded log.
#include <gtest/gtest.h>

#include <tiffany/coro/sleep.hpp>
#include <tiffany/handlers/testkit/plugin_harness.hpp>

namespace tiffany::testkit {
namespace {

using namespace std::chrono_literals;

struct Hits {
  int count = 0;
};

class SlowHello final : public Handler {
 public:
  explicit SlowHello(const HandlerParams& params)
      : worker_(params.worker()), delay_(params.integer_or("delay_ms", 0, 0, 100000)) {}
  Task<void> handle(http::Request& request, http::Response& response) override {
    co_await Sleep{std::chrono::milliseconds(delay_)};
    ++worker_.get<Hits>().count;
    worker_.logger().info("hello " + std::string(request.param("name").value_or("?")));
    const http::Delivery written = co_await response.write("hello ");
    if (written == http::Delivery::sent) co_await response.write(request.query_param("x").value_or(""));
  }

 private:
  WorkerContext& worker_;
  std::int64_t delay_;
};

class Boom final : public Handler {
 public:
  explicit Boom(const HandlerParams&) {}
  Task<void> handle(http::Request&, http::Response&) override {
    throw std::runtime_error("boom");
    co_return;
  }
};

class HitsPlugin final : public Plugin {
 public:
  void start_worker(WorkerContext& worker) override { worker.emplace<Hits>(); }
};

void init(PluginRegistrar& registrar, unsigned) {
  registrar.set_plugin(std::make_unique<HitsPlugin>());
  registrar.add_handler("t.hello", [](const HandlerParams& p) { return std::make_unique<SlowHello>(p); });
  registrar.add_handler("t.boom", [](const HandlerParams& p) { return std::make_unique<Boom>(p); });
}

TEST(PluginHarness, RunsAHandlerOnVirtualTimeWithItsPluginsHooks) {
  PluginHarness harness(init, "t");
  auto hello = harness.handler("t.hello", R"({"delay_ms": 30000})");
  const auto started = std::chrono::steady_clock::now();
  const Outcome outcome =
      harness.run(*hello, RequestBuilder("GET", "/hi/ada?x=%21").param("name", "ada"), "/hi/:name");
  EXPECT_LT(std::chrono::steady_clock::now() - started, 10s) << "30 s of virtual time should take no real time";
  EXPECT_EQ(outcome.status(), 200);
  EXPECT_EQ(outcome.body(), "hello !");
  EXPECT_EQ(outcome.streamed.size(), 2u);
  EXPECT_EQ(harness.worker().get<Hits>().count, 1);
  const auto logs = harness.logs();
  ASSERT_EQ(logs.size(), 1u);
  EXPECT_EQ(logs[0].text, "plugin \"t\" on route /hi/:name: hello ada");
  EXPECT_EQ(logs[0].request_id, "test-request");
}

TEST(PluginHarness, RethrowsTheHandlersExceptionAndRefusesUnknownNamesAndKeys) {
  PluginHarness harness(init, "t");
  auto boom = harness.handler("t.boom");
  EXPECT_THROW(harness.run(*boom, RequestBuilder("GET", "/")), std::runtime_error);
  EXPECT_THROW(harness.handler("t.nope"), std::invalid_argument);
  EXPECT_THROW(harness.handler("t.boom", R"({"typo": 1})"), ParamError);
}

TEST(PluginHarness, GivesUpOnAHandlerThatOutlivesTheVirtualLimit) {
  PluginHarness harness(init, "t");
  auto hello = harness.handler("t.hello", R"({"delay_ms": 100000})");
  http::Request request = RequestBuilder("GET", "/").build();
  EXPECT_THROW(harness.run(*hello, request, "/", 50ms), std::runtime_error);
}

TEST(RequestBuilderTest, SplitsTheTargetAndSetsBodiesWithTheirTypes) {
  const http::Request request =
      RequestBuilder("POST", "/a/../b%20c?q=1").form("x=1").cookie("s", "1").cookie("t", "2").header("X-A", "b").build();
  EXPECT_EQ(request.path, "/b c");
  EXPECT_EQ(request.query, "q=1");
  EXPECT_EQ(request.form()->get("x"), "1");
  EXPECT_EQ(request.cookie("t"), "2");
  EXPECT_EQ(request.headers.get("X-A"), "b");
  EXPECT_THROW(RequestBuilder("GET", "relative"), std::invalid_argument);
}

}  // namespace
}  // namespace tiffany::testkit
