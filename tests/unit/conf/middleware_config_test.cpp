// Config loading of middleware chains, the "with" object, the deprecated flat form and 404/405 handlers.
#include <gtest/gtest.h>

#include <string>

#include "conf/config_error.hpp"
#include "conf/config_loader.hpp"
#include "unit/conf/config_error_for.hpp"

namespace tiffany {
namespace {

std::string http_listener(const std::string& extra) {
  return R"({"listeners": [{"name": "w", "address": "127.0.0.1:0", "protocol": "http", )" + extra + "}]}";
}

TEST(MiddlewareConfig, ReadsListenerAndRouteChainsInOrderWithTheirSettings) {
  const Config config = parse_config(http_listener(R"(
      "middleware": [{"use": "rate_limit", "rate": 5}, {"use": "cors", "origins": "*"}],
      "routes": [{"path": "/a", "handler": "text", "with": {"body": "a"},
                  "middleware": [{"use": "kv.auth", "token": "t"}]}])"),
                                     "test.json");
  const ListenerConfig& listener = config.listeners[0];
  ASSERT_EQ(listener.middleware.size(), 2u);
  EXPECT_EQ(listener.middleware[0].use, "rate_limit");
  EXPECT_EQ(listener.middleware[0].params.at("rate").get<double>(), 5);
  EXPECT_EQ(listener.middleware[0].params.count("use"), 0u);
  EXPECT_EQ(listener.middleware[1].json_path, "$.listeners[0].middleware[1]");
  const RouteConfig& route = listener.routes[0];
  ASSERT_EQ(route.middleware.size(), 1u);
  EXPECT_EQ(route.middleware[0].use, "kv.auth");
  EXPECT_EQ(route.middleware[0].json_path, "$.listeners[0].routes[0].middleware[0]");
  EXPECT_EQ(route.params.at("body").get<std::string>(), "a");
  EXPECT_EQ(route.params_path, "$.listeners[0].routes[0].with");
  EXPECT_TRUE(config.warnings.empty());
}

TEST(MiddlewareConfig, NamesTheEntryThatIsWrong) {
  EXPECT_EQ(error_for(http_listener(R"("routes": [], "middleware": {"use": "cors"})")),
            "test.json: $.listeners[0].middleware: expected an array of middleware entries ({\"use\": \"cors\", ...}), "
            "got an object");
  EXPECT_EQ(error_for(http_listener(R"("routes": [], "middleware": ["cors"])")),
            "test.json: $.listeners[0].middleware[0]: expected a middleware entry: an object with \"use\" and its "
            "settings, got \"cors\"");
  EXPECT_EQ(error_for(http_listener(R"("routes": [], "middleware": [{"origins": "*"}])")),
            "test.json: $.listeners[0].middleware[0].use: missing required key (the middleware's name, e.g. \"cors\")");
  EXPECT_EQ(error_for(http_listener(R"("routes": [], "middleware": [{"use": ""}])")).substr(0, 48),
            "test.json: $.listeners[0].middleware[0].use: exp");
  EXPECT_EQ(error_for(http_listener(
                R"("routes": [{"path": "/", "handler": "text", "with": {}, "middleware": [{"use": 1}]}])"))
                .substr(0, 59),
            "test.json: $.listeners[0].routes[0].middleware[0].use: expe");
  EXPECT_EQ(error_for(R"({"listeners": [{"name": "e", "address": "127.0.0.1:0", "protocol": "echo",
                          "middleware": []}]})"),
            "test.json: $.listeners[0].middleware: only \"http\" listeners take this key");
}

TEST(MiddlewareConfig, WithHoldsTheHandlersSettingsAndMakesRouteKeysStrict) {
  EXPECT_EQ(error_for(http_listener(R"("routes": [{"path": "/", "handler": "text", "with": {}, "body": "x"}])")),
            "test.json: $.listeners[0].routes[0].body: unknown key; expected one of \"method\", \"path\", "
            "\"handler\", \"compress\", \"middleware\", \"with\"");
  EXPECT_EQ(error_for(http_listener(R"("routes": [{"path": "/", "handler": "text", "with": [1]}])")),
            "test.json: $.listeners[0].routes[0].with: expected an object of the handler's settings, got an array");
}

TEST(MiddlewareConfig, TheFlatFormStillWorksWithOneWarningPerRouteNamingItsPath) {
  const Config config = parse_config(http_listener(R"("routes": [
      {"path": "/old", "handler": "text", "body": "x", "status": 201},
      {"path": "/new", "handler": "text", "with": {"body": "y"}}])"),
                                     "test.json");
  EXPECT_EQ(config.listeners[0].routes[0].params.at("body").get<std::string>(), "x");
  EXPECT_EQ(config.listeners[0].routes[0].params_path, "$.listeners[0].routes[0]");
  ASSERT_EQ(config.warnings.size(), 1u);
  EXPECT_EQ(config.warnings[0],
            "test.json: $.listeners[0].routes[0]: route \"/old\" puts handler settings (\"body\", \"status\") beside "
            "the route keys; this form is deprecated: move them into \"with\"");
}

TEST(MiddlewareConfig, ReadsNotFoundAndMethodNotAllowedHandlers) {
  const Config config = parse_config(http_listener(R"("routes": [],
      "not_found": {"handler": "text", "with": {"body": "nothing here"}},
      "method_not_allowed": {"handler": "json"})"),
                                     "test.json");
  const ListenerConfig& listener = config.listeners[0];
  ASSERT_TRUE(listener.not_found);
  EXPECT_EQ(listener.not_found->handler, "text");
  EXPECT_EQ(listener.not_found->params.at("body").get<std::string>(), "nothing here");
  EXPECT_EQ(listener.not_found->params_path, "$.listeners[0].not_found.with");
  ASSERT_TRUE(listener.method_not_allowed);
  EXPECT_TRUE(listener.method_not_allowed->params.empty());
  EXPECT_EQ(error_for(http_listener(R"("routes": [], "not_found": {"handler": "text", "body": "x"})")),
            "test.json: $.listeners[0].not_found.body: unknown key; expected one of \"handler\", \"with\"");
  EXPECT_EQ(error_for(http_listener(R"("routes": [], "method_not_allowed": {})")),
            "test.json: $.listeners[0].method_not_allowed.handler: missing required key");
}

}  // namespace
}  // namespace tiffany
