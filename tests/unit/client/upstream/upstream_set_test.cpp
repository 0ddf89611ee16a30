// UpstreamSet: per-worker upstreams built from the loaded config, found by name.
#include "client/upstream/upstream_set.hpp"

#include <gtest/gtest.h>

#include "conf/config_loader.hpp"

namespace tiffany::upstream {
namespace {

TEST(UpstreamSet, BuildsEachConfiguredUpstreamWithItsBalancerAndBudget) {
  const Config config = parse_config(R"({"upstreams": {
      "app": {"servers": ["127.0.0.1:9001", "127.0.0.1:9002"], "retry_budget": {"percent": 50, "min_concurrent": 1}},
      "web": {"servers": ["web.internal:80"]}},
    "listeners": [{"name": "e", "address": "127.0.0.1:0", "protocol": "echo"}]})",
                                     "t.json");
  UpstreamSet set(config.upstreams);
  EXPECT_EQ(set.size(), 2u);
  EXPECT_EQ(set.find("nope"), nullptr);
  Upstream* app = set.find("app");
  ASSERT_NE(app, nullptr);
  EXPECT_EQ(app->config.name, "app");
  EXPECT_EQ(app->group.size(), 2u);
  EXPECT_EQ(app->group.server(1).to_string(), "127.0.0.1:9002");
  EXPECT_EQ(app->retry_budget.limit(), 1u);
  for (int i = 0; i < 4; ++i) app->retry_budget.begin_request();
  EXPECT_EQ(app->retry_budget.limit(), 2u);
  EXPECT_EQ(set.find("app"), app) << "the same object each time";
  ASSERT_NE(set.find("web"), nullptr);
  EXPECT_EQ(set.find("web")->group.server(0).host, "web.internal");
}

}  // namespace
}  // namespace tiffany::upstream
