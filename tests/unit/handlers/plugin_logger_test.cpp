// The plugin Logger: tagged lines into the installed sink, nothing below its level.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <tiffany/coro/scheduler.hpp>
#include <tiffany/handlers/plugin_logger.hpp>
#include <tiffany/http/request_context.hpp>

namespace tiffany {
namespace {

class RecordingSink final : public LogSink {
 public:
  bool enabled(LogLevel level) const noexcept override { return level >= threshold; }
  void write(LogLevel level, std::string_view line) noexcept override {
    lines.push_back(std::string(log_level_name(level)) + " " + std::string(line));
  }
  LogLevel threshold = LogLevel::info;
  std::vector<std::string> lines;
};

class PluginLogger : public ::testing::Test {
 protected:
  PluginLogger() { set_log_sink(&sink); }
  ~PluginLogger() override { set_log_sink(nullptr); }
  RecordingSink sink;
  Logger logger{"shop"};
};

TEST_F(PluginLogger, TagsLinesWithThePluginAndWritesOnlyFromTheLevelUp) {
  logger.debug("hidden");
  logger.info("ready");
  logger.logf(LogLevel::error, "%d carts lost", 3);
  EXPECT_FALSE(logger.enabled(LogLevel::debug));
  EXPECT_EQ(sink.lines, (std::vector<std::string>{"info plugin \"shop\": ready", "error plugin \"shop\": 3 carts lost"}));
}

TEST_F(PluginLogger, NamesTheRouteOfTheRequestBeingAnswered) {
  Scheduler scheduler;
  auto task = [](const Logger& log) -> Task<void> {
    http::kRoute.set(http::RouteInfo{"/carts/:id", "handler \"shop.cart\""});
    log.warn("slow upstream");
    co_return;
  };
  (void)scheduler.spawn(task(logger));
  scheduler.run();
  EXPECT_EQ(sink.lines, (std::vector<std::string>{"warn plugin \"shop\" on route /carts/:id: slow upstream"}));
}

TEST_F(PluginLogger, FormatsLongMessagesWhole) {
  const std::string long_text(2000, 'x');
  logger.logf(LogLevel::notice, "%s!", long_text.c_str());
  ASSERT_EQ(sink.lines.size(), 1u);
  EXPECT_EQ(sink.lines[0], "notice plugin \"shop\": " + long_text + "!");
}

}  // namespace
}  // namespace tiffany
