// shop's unit tests: the SDK test kit, no server (compiled by the test suite).
#include <gtest/gtest.h>

#include <tiffany/handlers/plugin_api.hpp>
#include <tiffany/handlers/testkit/plugin_harness.hpp>

extern "C" void tiffany_plugin_init(tiffany::PluginRegistrar& registrar, unsigned abi_version);

using tiffany::testkit::PluginHarness;
using tiffany::testkit::RequestBuilder;

TEST(Shop, AddsItemsFromAFormAndShowsTheCart) {
  PluginHarness harness(tiffany_plugin_init, "shop");  // runs start and start_worker
  auto add = harness.handler("shop.add");
  auto show = harness.handler("shop.cart", R"({"currency": "CHF"})");

  const auto added = harness.run(
      *add, RequestBuilder("POST", "/carts/42/items").form("item=apple&item=pear&item=apple").param("id", "42"),
      "/carts/:id/items");
  EXPECT_EQ(added.status(), 303);
  EXPECT_EQ(added.header("Location"), "/carts/42");
  EXPECT_TRUE(harness.logged("plugin \"shop\" on route /carts/:id/items: added 3 items to cart 42"));

  const auto shown = harness.run(*show, RequestBuilder("GET", "/carts/42").param("id", "42"));
  EXPECT_EQ(shown.body(), R"({"cart":"42","currency":"CHF","items":{"apple":2,"pear":1}})");
  EXPECT_EQ(shown.header("Set-Cookie"), "visited=1; Path=/; HttpOnly");
}

TEST(Shop, ReportsEachMinuteOnVirtualTime) {
  PluginHarness harness(tiffany_plugin_init, "shop");
  harness.advance(std::chrono::minutes(2));  // instant: the clock is the harness's
  EXPECT_TRUE(harness.logged("worker 0 served 0 requests"));
}

TEST(Shop, RegionMiddlewareRefusesUnknownRegionsAndStampsTheResponse) {
  PluginHarness harness(tiffany_plugin_init, "shop");
  auto region = harness.middleware("shop.region", R"({"regions": ["ch", "de"], "default": "ch"})");
  auto show = harness.handler("shop.cart", R"({"currency": "CHF"})");
  const auto refused = harness.run(*region, *show, RequestBuilder("GET", "/carts/1").header("X-Region", "fr"));
  EXPECT_EQ(refused.status(), 400);
  const auto shown = harness.run(*region, *show, RequestBuilder("GET", "/carts/1").param("id", "1"));
  EXPECT_EQ(shown.status(), 200);
  EXPECT_EQ(shown.header("X-Region"), "ch");
}

TEST(Shop, UploadReadsAPhotoPieceByPieceAndRefusesOtherTypesUnread) {
  PluginHarness harness(tiffany_plugin_init, "shop");
  auto upload = harness.handler("shop.upload");
  const auto photo = RequestBuilder("POST", "/photos/pear").header("Content-Type", "image/jpeg");
  const auto stored = harness.run(*upload, RequestBuilder(photo).body_in_pieces({"\xff\xd8", "jpeg"}));
  EXPECT_EQ(stored.status(), 201);
  EXPECT_EQ(stored.body(), "stored 6 bytes\n");
  const auto refused = harness.run(*upload, RequestBuilder("POST", "/photos/pear").body_in_pieces({"text"}));
  EXPECT_EQ(refused.status(), 415);
}
