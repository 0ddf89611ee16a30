// kv's unit tests, written as a plugin author would: against the SDK's test
// kit only (Tiffany::testkit), on virtual time, without a server.
#include <gtest/gtest.h>

#include <tiffany/handlers/plugin_api.hpp>
#include <tiffany/handlers/testkit/plugin_harness.hpp>

#include "kv_store.hpp"

extern "C" void tiffany_plugin_init(tiffany::PluginRegistrar& registrar, unsigned abi_version);

namespace {

using namespace std::chrono_literals;
using tiffany::testkit::PluginHarness;
using tiffany::testkit::RequestBuilder;

class Kv : public ::testing::Test {
 protected:
  PluginHarness harness{tiffany_plugin_init, "kv"};
  std::unique_ptr<tiffany::Handler> get = harness.handler("kv.get");
  std::unique_ptr<tiffany::Handler> put = harness.handler("kv.put", R"({"max_ttl_ms": 60000})");
  std::unique_ptr<tiffany::Handler> del = harness.handler("kv.delete");

  tiffany::testkit::Outcome get_key(const std::string& key) {
    return harness.run(*get, RequestBuilder("GET", "/kv/" + key).param("key", key), "/kv/:key");
  }
};

TEST_F(Kv, StoresAJsonValueAndGivesItBack) {
  EXPECT_EQ(harness.run(*put, RequestBuilder("PUT", "/kv/a").json(R"({"n": [1, 2]})").param("key", "a")).status(),
            204);
  const auto outcome = get_key("a");
  EXPECT_EQ(outcome.status(), 200);
  EXPECT_EQ(outcome.header("Content-Type").value_or(""), "application/json");
  EXPECT_EQ(outcome.body(), R"({"key":"a","value":{"n":[1,2]}})");
}

TEST_F(Kv, AnswersBadJsonWith400SayingWhere) {
  const auto outcome = harness.run(*put, RequestBuilder("PUT", "/kv/a").json("{\"n\": tru}").param("key", "a"));
  EXPECT_EQ(outcome.status(), 400);
  EXPECT_EQ(outcome.json().get("error").to_str(), "bad JSON at line 1, column 10: unexpected \"}\"");
  EXPECT_EQ(get_key("a").status(), 404);
}

TEST_F(Kv, ExpiresAKeyAfterItsTtlAndTheWorkersSweeperLogsIt) {
  ASSERT_EQ(harness.run(*put, RequestBuilder("PUT", "/kv/t?ttl_ms=1500").json("1").param("key", "t")).status(), 204);
  EXPECT_EQ(get_key("t").status(), 200);
  harness.advance(1600ms);  // virtual time: the sweeper runs at 1 s and 2 s
  EXPECT_EQ(get_key("t").status(), 404);
  harness.advance(500ms);
  EXPECT_TRUE(harness.logged("plugin \"kv\": swept 1 expired keys"));
  EXPECT_EQ(harness.worker().get<kv::WorkerStats>().expired, 1u);
}

TEST_F(Kv, DeletesAndLogsWithTheRouteAndRequestId) {
  ASSERT_EQ(harness.run(*put, RequestBuilder("PUT", "/kv/d").json("true").param("key", "d")).status(), 204);
  EXPECT_EQ(harness.run(*del, RequestBuilder("DELETE", "/kv/d").param("key", "d"), "/kv/:key").status(), 204);
  EXPECT_EQ(harness.run(*del, RequestBuilder("DELETE", "/kv/d").param("key", "d"), "/kv/:key").status(), 404);
  bool found = false;
  for (const auto& line : harness.logs()) {
    if (line.text == "plugin \"kv\" on route /kv/:key: deleted \"d\"") found = line.request_id == "test-request";
  }
  EXPECT_TRUE(found);
}

TEST_F(Kv, AuthMiddlewareRefusesWritesWithoutTheTokenAndLetsReadsThrough) {
  auto auth = harness.middleware("kv.auth", R"({"token": "0123456789abcdef"})");
  const auto refused = harness.run(*auth, *put, RequestBuilder("PUT", "/kv/a").json("1").param("key", "a"));
  EXPECT_EQ(refused.status(), 401);
  EXPECT_EQ(refused.header("WWW-Authenticate").value_or(""), "Bearer realm=\"kv\"");
  EXPECT_EQ(harness.run(*auth, *get, RequestBuilder("GET", "/kv/a").param("key", "a")).status(), 404);
  const auto stored = harness.run(
      *auth, *put,
      RequestBuilder("PUT", "/kv/a").json("1").param("key", "a").header("Authorization", "Bearer 0123456789abcdef"));
  EXPECT_EQ(stored.status(), 204);
  EXPECT_TRUE(harness.logged("stored \"a\" (writer: token)"));
}

TEST_F(Kv, AuthMiddlewareRefusesAShortToken) {
  EXPECT_THROW(harness.middleware("kv.auth", R"({"token": "short"})"), tiffany::ParamError);
  EXPECT_THROW(harness.middleware("kv.auth", R"({})"), tiffany::ParamError);
}

}  // namespace
