// The small built-in handlers: text, echo, json, health, status; and params.
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <tiffany/coro/scheduler_stats.hpp>
#include <tiffany/handlers/handler_registry.hpp>
#include <tiffany/handlers/server_stats.hpp>
#include <tiffany/http/utf8.hpp>

#include "handler_harness.hpp"
#include "handlers/builtin/echo_handler.hpp"
#include "handlers/builtin/health_handler.hpp"
#include "handlers/builtin/json_handler.hpp"
#include "handlers/builtin/text_handler.hpp"
#include "handlers/engine/metrics.hpp"
#include "handlers/engine/readiness.hpp"

namespace tiffany::testing {
namespace {

TEST(TextHandler, AnswersItsBodyAndContentType) {
  const auto params = params_from(R"({"body": "Hello, World!", "content_type": "text/x-test", "status": 201})");
  TextHandler handler{HandlerParams(params)};
  auto request = make_request("GET", "/plaintext");
  const auto outcome = run_handler(handler, request);
  EXPECT_EQ(outcome->response.status, 201);
  EXPECT_EQ(outcome->response.body, "Hello, World!");
  EXPECT_EQ(outcome->response.headers.get("Content-Type"), "text/x-test");
}

TEST(TextHandler, RequiresABody) {
  const auto params = params_from(R"({"content_type": "text/plain"})");
  try {
    TextHandler handler{HandlerParams(params)};
    FAIL() << "accepted a text route without a body";
  } catch (const ParamError& e) {
    EXPECT_EQ(e.key(), "body");
    EXPECT_STREQ(e.what(), "missing required key");
  }
}

TEST(TextHandler, RejectsAStatusOutOfRange) {
  const auto params = params_from(R"({"body": "x", "status": 99})");
  EXPECT_THROW(TextHandler{HandlerParams(params)}, ParamError);
}

TEST(EchoHandler, ReturnsTheBodyWithItsContentType) {
  const auto params = params_from("{}");
  EchoHandler handler{HandlerParams(params)};
  auto request = make_request("POST", "/echo");
  request.body = "payload";
  request.headers.add("Content-Type", "application/x-thing");
  const auto outcome = run_handler(handler, request);
  EXPECT_EQ(outcome->response.body, "payload");
  EXPECT_EQ(outcome->response.headers.get("Content-Type"), "application/x-thing");

  auto untyped = make_request("POST", "/echo");
  EXPECT_EQ(run_handler(handler, untyped)->response.headers.get("Content-Type"), "application/octet-stream");
}

TEST(JsonHandler, ServesTheConfiguredDocument) {
  const auto params = params_from(R"({"document": {"message": "Hello, World!", "n": [1, 2]}})");
  JsonHandler handler{HandlerParams(params)};
  auto request = make_request("GET", "/json");
  const auto outcome = run_handler(handler, request);
  EXPECT_EQ(outcome->response.body, R"({"message":"Hello, World!","n":[1,2]})");
  EXPECT_EQ(outcome->response.headers.get("Content-Type"), "application/json");
}

TEST(JsonHandler, DescribesTheRequestWithoutADocument) {
  const auto params = params_from("{}");
  JsonHandler handler{HandlerParams(params)};
  auto request = make_request("GET", "/users/7");
  request.query = "a=1";
  request.headers.add("X-One", "1");
  request.headers.add("X-Two", "a");
  request.headers.add("x-two", "b");
  request.params.emplace_back("id", "7");
  const auto outcome = run_handler(handler, request);
  picojson::value parsed;
  ASSERT_EQ(picojson::parse(parsed, outcome->response.body), "");
  auto& document = parsed.get<picojson::object>();
  EXPECT_EQ(document["method"].get<std::string>(), "GET");
  EXPECT_EQ(document["path"].get<std::string>(), "/users/7");
  EXPECT_EQ(document["query"].get<std::string>(), "a=1");
  EXPECT_EQ(document["params"].get<picojson::object>()["id"].get<std::string>(), "7");
  auto& headers = document["headers"].get<picojson::object>();
  EXPECT_EQ(headers["X-One"].get<std::string>(), "1");
  EXPECT_EQ(headers["X-Two"].serialize(), R"(["a","b"])");
}

TEST(JsonHandler, GroupsRepeatedHeadersIgnoringCaseUnderTheSpellingSeenFirst) {
  const auto params = params_from("{}");
  JsonHandler handler{HandlerParams(params)};
  auto request = make_request("GET", "/json");
  // Ignoring case "a" < "Host" < "x-b"; with case "A" < "Host" < "x-b" too, but "x-b" > "X-B".
  for (const auto& [name, value] : std::vector<std::pair<std::string, std::string>>{
           {"x-b", "1"}, {"A", "2"}, {"X-B", "3"}, {"a", "4"}, {"Host", "5"}, {"x-B", "6"}}) {
    request.headers.add(name, value);
  }
  const auto outcome = run_handler(handler, request);
  picojson::value parsed;
  ASSERT_EQ(picojson::parse(parsed, outcome->response.body), "");
  EXPECT_EQ(parsed.get<picojson::object>()["headers"].serialize(), R"({"A":["2","4"],"Host":"5","x-b":["1","3","6"]})");
}

TEST(JsonHandler, ReplacesInvalidUtf8SoTheDocumentIsValidJson) {
  const auto params = params_from("{}");
  JsonHandler handler{HandlerParams(params)};
  auto request = make_request("GET", "/users/\xff");  // what /users/%ff decodes to
  request.query = "a=\xc3\xa9&b=\xed\xa0\x80";  // valid, then a surrogate
  request.headers.add("X-Raw", "\x80");
  request.params.emplace_back("id", "\xff");
  const auto outcome = run_handler(handler, request);
  EXPECT_TRUE(http::is_valid_utf8(outcome->response.body)) << outcome->response.body;
  picojson::value parsed;
  ASSERT_EQ(picojson::parse(parsed, outcome->response.body), "");
  auto& document = parsed.get<picojson::object>();
  EXPECT_EQ(document["path"].get<std::string>(), "/users/\xef\xbf\xbd");
  EXPECT_EQ(document["query"].get<std::string>(), "a=\xc3\xa9&b=\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
  EXPECT_EQ(document["params"].get<picojson::object>()["id"].get<std::string>(), "\xef\xbf\xbd");
}

struct HealthAnswer {
  int status = 0;
  std::string body;
  std::string cache_control;
};

// Answers /health with the process's readiness set to `state`.
HealthAnswer health_while(Readiness state) {
  set_readiness(state);
  const auto params = params_from("{}");
  HealthHandler handler{HandlerParams(params)};
  auto request = make_request("GET", "/health");
  const auto outcome = run_handler(handler, request);
  set_readiness(Readiness::starting);
  return HealthAnswer{outcome->response.status, outcome->response.body,
                      std::string(outcome->response.headers.get("Cache-Control").value_or(""))};
}

TEST(HealthHandler, SaysOkWhileReady) {
  const HealthAnswer response = health_while(Readiness::ready);
  EXPECT_EQ(response.status, 200);
  EXPECT_EQ(response.body, "ok");
  EXPECT_EQ(response.cache_control, "no-store");
}

TEST(HealthHandler, Says503WhileStartingAndWhileClosing) {
  const HealthAnswer starting = health_while(Readiness::starting);
  EXPECT_EQ(starting.status, 503);
  EXPECT_EQ(starting.body, "starting");
  const HealthAnswer closing = health_while(Readiness::closing);
  EXPECT_EQ(closing.status, 503);
  EXPECT_EQ(closing.body, "draining");
}

TEST(StatusHandler, ReportsEveryStatAndAllWorkersTasks) {
  add_stat(Stat::requests_total, 5);
  add_stat(Stat::tls_handshake_failures, 2);
  WorkerCounters& worker = Metrics::instance().add_worker();
  SchedulerStats published;
  published.spawned = 7;
  published.context_switches = 9;
  worker.publish(published);
  const auto params = params_from("{}");
  StatusHandler handler{HandlerParams(params)};
  auto request = make_request("GET", "/status");
  const auto outcome = run_handler(handler, request);
  picojson::value parsed;
  ASSERT_EQ(picojson::parse(parsed, outcome->response.body), "");
  auto& document = parsed.get<picojson::object>();
  EXPECT_GE(document["requests_total"].get<double>(), 5.0);
  EXPECT_GE(document["tls_handshake_failures"].get<double>(), 2.0);
  EXPECT_GE(document["uptime_seconds"].get<double>(), 0.0);
  for (const StatDescription& stat : stat_descriptions()) {
    EXPECT_TRUE(document[std::string(stat.key)].is<double>()) << stat.key;
  }
  auto& scheduler = document["scheduler"].get<picojson::object>();
  EXPECT_GE(scheduler["spawned"].get<double>(), 7.0);
  EXPECT_GE(scheduler["context_switches"].get<double>(), 9.0);
}

TEST(ServerStats, SumTheCountsOfEveryThreadIncludingThoseThatExited) {
  const std::int64_t before = stat_totals()[Stat::bytes_sent];
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([] {
      for (int n = 0; n < 1000; ++n) add_stat(Stat::bytes_sent, 3);
    });
  }
  for (std::thread& thread : threads) thread.join();
  add_stat(Stat::bytes_sent, 1);
  EXPECT_EQ(stat_totals()[Stat::bytes_sent] - before, 4 * 1000 * 3 + 1);
}

TEST(HandlerParams, ReportsKeysNoFactoryAskedFor) {
  const auto params = params_from(R"({"body": "x", "bodyy": "typo"})");
  const HandlerParams reader(params);
  TextHandler handler{reader};
  EXPECT_EQ(reader.unknown_keys(), std::vector<std::string>{"bodyy"});
  EXPECT_TRUE(reader.known_keys().contains("content_type"));
}

TEST(HandlerParams, RefusesToReadARouteKeyItWouldNeverSee) {
  const auto params = params_from(R"({"body": "x"})");
  const HandlerParams reader(params);
  for (const char* route_key : {"path", "method", "handler"}) {
    try {
      (void)reader.string_or(route_key, "fallback");
      ADD_FAILURE() << route_key << " was read";
    } catch (const ParamError& e) {
      EXPECT_EQ(e.key(), route_key);
      EXPECT_NE(std::string(e.what()).find("is a route key"), std::string::npos) << e.what();
    }
  }
}

TEST(HandlerParams, SettingsInTheirOwnObjectMayUseARouteKeysName) {
  const auto params = params_from(R"({"path": "/data", "method": "fast"})");
  const HandlerParams with(params, ".", nullptr, /*beside_route_keys=*/false);
  EXPECT_EQ(with.string("path"), "/data");
  EXPECT_EQ(with.string("method"), "fast");
  EXPECT_TRUE(with.unknown_keys().empty());
}

TEST(HandlerParams, ResolvesRelativePathsAgainstTheConfigFolder) {
  const auto params = params_from(R"({"root": "www", "abs": "/srv/site"})");
  const HandlerParams reader(params, "/etc/tiffany");
  EXPECT_EQ(reader.path("root"), "/etc/tiffany/www");
  EXPECT_EQ(reader.path("abs"), "/srv/site");
}

TEST(HandlerRegistry, HoldsTheBuiltinsAndRefusesDuplicates) {
  HandlerRegistry registry;
  register_builtin_handlers(registry);
  EXPECT_EQ(registry.names(),
            (std::vector<std::string>{"echo", "health", "json", "metrics", "static", "status", "text", "websocket_echo"}));
  EXPECT_NE(registry.find("static"), nullptr);
  EXPECT_EQ(registry.find("nope"), nullptr);
  EXPECT_THROW(registry.add("text", registry.find("echo") ? *registry.find("echo") : HandlerFactory{}),
               std::invalid_argument);
}

}  // namespace
}  // namespace tiffany::testing
