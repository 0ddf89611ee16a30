// The `upstreams` section and `proxy` routes: the shape read, one precise message per mistake.
#include <gtest/gtest.h>

#include <string>

#include "conf/config_loader.hpp"
#include "unit/conf/config_error_for.hpp"

namespace tiffany {
namespace {

const std::string kListener = R"("listeners": [{"name": "e", "address": "127.0.0.1:0", "protocol": "echo"}])";

std::string with_upstream(const std::string& app) { return "{\"upstreams\": {\"app\": " + app + "}, " + kListener + "}"; }

TEST(UpstreamConfig, ReadsEveryKey) {
  const Config config = parse_config(R"({"upstreams": {
      "app": {"servers": ["127.0.0.1:9001", {"address": "[::1]:9002", "weight": 2, "backup": true}, "app.internal:8080"],
              "balance": {"hash": "header:X-User"}, "keepalive": 8, "max_connections": 100, "idle_timeout_ms": 5000,
              "max_fails": 0, "fail_timeout_ms": 2000, "connect_timeout_ms": 300,
              "health": {"path": "/hz", "interval_ms": 500, "timeout_ms": 200, "expect_status": [200, 204], "rise": 1, "fall": 4},
              "tls": {"verify": false, "ca_file": "ca.pem", "server_name": "app.test"},
              "retry_budget": {"percent": 50, "min_concurrent": 1}},
      "b": {"servers": ["10.0.0.1:80"], "balance": "least_conn"}},
    "listeners": [{"name": "w", "address": "127.0.0.1:0", "protocol": "http", "routes": [
      {"path": "/app/*", "handler": "proxy", "with": {"upstream": "app"}}]}]})",
                                     "/etc/t/test.json");
  ASSERT_EQ(config.upstreams.size(), 2u);
  const UpstreamConfig& app = config.upstreams[0];
  EXPECT_EQ(app.name, "app");
  EXPECT_EQ(app.json_path, "$.upstreams.app");
  ASSERT_EQ(app.servers.size(), 3u);
  EXPECT_EQ(app.servers[0].to_string(), "127.0.0.1:9001");
  EXPECT_EQ(app.servers[0].weight, 1);
  EXPECT_FALSE(app.servers[0].backup);
  EXPECT_EQ(app.servers[1].host, "::1");
  EXPECT_EQ(app.servers[1].to_string(), "[::1]:9002");
  EXPECT_EQ(app.servers[1].weight, 2);
  EXPECT_TRUE(app.servers[1].backup);
  EXPECT_EQ(app.servers[2].host, "app.internal");
  EXPECT_EQ(app.servers[2].port, 8080);
  EXPECT_EQ(app.balance, UpstreamBalance::hash);
  EXPECT_EQ(app.hash_key, UpstreamHashKey::header);
  EXPECT_EQ(app.hash_header, "X-User");
  EXPECT_EQ(app.keepalive, 8u);
  EXPECT_EQ(app.max_connections, 100u);
  EXPECT_EQ(app.idle_timeout_ms, 5000);
  EXPECT_EQ(app.max_fails, 0);
  EXPECT_EQ(app.fail_timeout_ms, 2000);
  EXPECT_EQ(app.connect_timeout_ms, 300);
  ASSERT_TRUE(app.health.has_value());
  EXPECT_EQ(app.health->path, "/hz");
  EXPECT_EQ(app.health->interval_ms, 500);
  EXPECT_EQ(app.health->timeout_ms, 200);
  EXPECT_EQ(app.health->expect_status_min, 200);
  EXPECT_EQ(app.health->expect_status_max, 204);
  EXPECT_EQ(app.health->rise, 1);
  EXPECT_EQ(app.health->fall, 4);
  ASSERT_TRUE(app.tls.has_value());
  EXPECT_FALSE(app.tls->verify);
  EXPECT_EQ(app.tls->ca_file, "/etc/t/ca.pem");
  EXPECT_EQ(app.tls->server_name, "app.test");
  EXPECT_EQ(app.retry_budget.percent, 50);
  EXPECT_EQ(app.retry_budget.min_concurrent, 1);
  const UpstreamConfig& b = config.upstreams[1];
  EXPECT_EQ(b.balance, UpstreamBalance::least_conn);
  EXPECT_FALSE(b.health.has_value());
  EXPECT_FALSE(b.tls.has_value());
  EXPECT_EQ(b.max_fails, 1);
  EXPECT_EQ(b.retry_budget.percent, 20);
  EXPECT_EQ(b.retry_budget.min_concurrent, 3);
}

TEST(UpstreamConfig, HashKeys) {
  EXPECT_EQ(parse_config(with_upstream(R"({"servers": ["a:1"], "balance": {"hash": "path"}})"), "t.json").upstreams[0].hash_key,
            UpstreamHashKey::path);
  EXPECT_EQ(parse_config(with_upstream(R"({"servers": ["a:1"], "balance": {"hash": "client_address"}})"), "t.json")
                .upstreams[0]
                .hash_key,
            UpstreamHashKey::client_address);
}

TEST(UpstreamConfig, RefusesBadValuesNamingThePath) {
  const struct {
    std::string app;
    std::string expected;
  } cases[] = {
      {R"({"servers": []})", "test.json: $.upstreams.app.servers: expected at least one server"},
      {R"({"servers": ["a:1"], "zz": 1})", "test.json: $.upstreams.app.zz: unknown key"},
      {R"({"servers": ["a"]})", "test.json: $.upstreams.app.servers[0]: expected \"HOST:PORT\""},
      {R"({"servers": ["a:0"]})", "test.json: $.upstreams.app.servers[0]: expected \"HOST:PORT\""},
      {R"({"servers": ["a:65536"]})", "test.json: $.upstreams.app.servers[0]: expected \"HOST:PORT\""},
      {R"({"servers": ["300.1.1.1:80"]})", "test.json: $.upstreams.app.servers[0]: expected \"HOST:PORT\""},
      {R"({"servers": ["[::g]:80"]})", "test.json: $.upstreams.app.servers[0]: expected \"HOST:PORT\""},
      {R"({"servers": ["a b:80"]})", "test.json: $.upstreams.app.servers[0]: expected \"HOST:PORT\""},
      {R"({"servers": [{"address": "a:1", "weight": 0}]})", "test.json: $.upstreams.app.servers[0].weight: expected an integer"},
      {R"({"servers": [{"address": "a:1", "weight": 1001}]})", "test.json: $.upstreams.app.servers[0].weight: expected an integer"},
      {R"({"servers": [{"address": "a:1", "backup": true}]})", "test.json: $.upstreams.app.servers: expected at least one server that is not a backup"},
      {R"({"servers": [{"weight": 1}]})", "test.json: $.upstreams.app.servers[0].address: missing required key"},
      {R"({"servers": ["a:1"], "balance": "random"})", "test.json: $.upstreams.app.balance: expected one of"},
      {R"({"servers": ["a:1"], "balance": {"hash": "cookie"}})", "test.json: $.upstreams.app.balance.hash: expected \"client_address\", \"path\" or \"header:NAME\""},
      {R"({"servers": ["a:1"], "balance": {"hash": "header:"}})", "test.json: $.upstreams.app.balance.hash: expected"},
      {R"({"servers": ["a:1"], "health": {"interval_ms": 0}})", "test.json: $.upstreams.app.health.interval_ms: expected an integer"},
      {R"({"servers": ["a:1"], "health": {"rise": 0}})", "test.json: $.upstreams.app.health.rise: expected an integer"},
      {R"({"servers": ["a:1"], "health": {"fall": 0}})", "test.json: $.upstreams.app.health.fall: expected an integer"},
      {R"({"servers": ["a:1"], "health": {"expect_status": [399, 200]}})", "test.json: $.upstreams.app.health.expect_status: expected [MIN, MAX]"},
      {R"({"servers": ["a:1"], "health": {"path": "hz"}})", "test.json: $.upstreams.app.health.path: expected a request target"},
      {R"({"servers": ["a:1"], "retry_budget": {"percent": 101}})", "test.json: $.upstreams.app.retry_budget.percent: expected an integer"},
      {R"({"servers": ["a:1"], "retry_budget": {"percent": -1}})", "test.json: $.upstreams.app.retry_budget.percent: expected an integer"},
      {R"({"servers": ["a:1"], "tls": {"server_name": "a b"}})", "test.json: $.upstreams.app.tls.server_name: expected a DNS name"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.app);
    const std::string message = error_for(with_upstream(c.app));
    EXPECT_EQ(message.rfind(c.expected, 0), 0u) << message;
  }
}

TEST(UpstreamConfig, RefusesDuplicateAndBadNames) {
  EXPECT_NE(error_for(R"({"upstreams": {"a": {"servers": ["a:1"]}, "a": {"servers": ["b:1"]}}, )" + kListener + "}")
                .find("test.json: $.upstreams.a"),
            std::string::npos);
  EXPECT_EQ(error_for(R"({"upstreams": {"a/b": {"servers": ["a:1"]}}, )" + kListener + "}"),
            "test.json: $.upstreams.a/b: an upstream name is letters, digits, '_', '-' and '.'");
}

std::string proxy_config(const std::string& route_keys) {
  return R"({"upstreams": {"app": {"servers": ["a:1"]}, "web": {"servers": ["b:1"]}},
      "listeners": [{"name": "w", "address": "127.0.0.1:0", "protocol": "http", "routes": [
        {"path": "/a", "handler": "static", "with": {}}, {"path": "/b", "handler": "h", "with": {}},
        {"path": "/app/*", "handler": "proxy", )" +
         route_keys + "}]}]}";
}

TEST(UpstreamConfig, ProxyRoutesMustNameADefinedUpstream) {
  EXPECT_EQ(error_for(proxy_config(R"("with": {"upstream": "ap"})")),
            "test.json: $.listeners[0].routes[2].with.upstream: no upstream named \"ap\"; defined: app, web");
  EXPECT_EQ(error_for(proxy_config(R"("with": {})")),
            "test.json: $.listeners[0].routes[2].with.upstream: a \"proxy\" route needs \"upstream\": the name of an "
            "upstream; defined: app, web");
  EXPECT_EQ(error_for(proxy_config(R"("upstream": "nope")")),
            "test.json: $.listeners[0].routes[2].upstream: no upstream named \"nope\"; defined: app, web");
  EXPECT_EQ(error_for(proxy_config(R"("with": {"upstream": "web"})")), "(accepted)");
  EXPECT_EQ(error_for(R"({"listeners": [{"name": "w", "address": "127.0.0.1:0", "protocol": "http", "routes": [
        {"path": "/", "handler": "proxy", "with": {"upstream": "app"}}]}]})"),
            "test.json: $.listeners[0].routes[0].with.upstream: no upstream named \"app\"; defined: none (add a "
            "top-level \"upstreams\" section)");
}

}  // namespace
}  // namespace tiffany
