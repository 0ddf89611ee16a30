// chat's unit tests, written as a plugin author would: against the SDK's test kit only
// (Tiffany::testkit): scripted WebSockets (PluginHarness::open_websocket) and the SDK's
// pub/sub on the harness's one worker, on virtual time, without a server.
#include <gtest/gtest.h>

#include <string>

#include <tiffany/handlers/plugin_api.hpp>
#include <tiffany/handlers/testkit/plugin_harness.hpp>

extern "C" void tiffany_plugin_init(tiffany::PluginRegistrar& registrar, unsigned abi_version);

namespace {

using tiffany::testkit::PluginHarness;
using tiffany::testkit::RequestBuilder;
using tiffany::testkit::WebSocketClient;

class Chat : public ::testing::Test {
 protected:
  PluginHarness harness{tiffany_plugin_init, "chat"};
  std::unique_ptr<tiffany::Handler> room = harness.handler("chat.room", R"({"max_behind": 4})");

  WebSocketClient enter(const std::string& name, const std::string& where = "lobby") {
    return harness.open_websocket(*room, RequestBuilder("GET", "/chat?room=" + where + "&name=" + name), "/chat");
  }
  // Every message `client` has been sent and not taken, as one string, a line each.
  static std::string heard(WebSocketClient& client) {
    std::string all;
    while (auto message = client.next()) all += message->data + "\n";
    return all;
  }
};

TEST_F(Chat, EveryoneInTheRoomHearsWhoComesWhatIsSaidAndWhoGoes) {
  WebSocketClient ann = enter("ann");
  ASSERT_TRUE(ann.accepted());
  EXPECT_EQ(ann.handshake().status(), 101);
  WebSocketClient bob = enter("bob");
  WebSocketClient eve = enter("eve", "attic");
  harness.run_until_idle();
  EXPECT_EQ(heard(ann), "{\"joined\":\"ann\",\"room\":\"lobby\"}\n{\"joined\":\"bob\",\"room\":\"lobby\"}\n");
  EXPECT_EQ(heard(bob), "{\"joined\":\"bob\",\"room\":\"lobby\"}\n");

  ann.send_text("hi bob");
  harness.run_until_idle();
  const std::string said = "{\"from\":\"ann\",\"room\":\"lobby\",\"text\":\"hi bob\"}\n";
  EXPECT_EQ(heard(ann), said);
  EXPECT_EQ(heard(bob), said);
  EXPECT_EQ(heard(eve), "{\"joined\":\"eve\",\"room\":\"attic\"}\n");  // another room hears none of it

  bob.close();
  bob.finish();
  harness.run_until_idle();
  EXPECT_EQ(heard(ann), "{\"left\":\"bob\",\"room\":\"lobby\"}\n");
  ann.finish();
  eve.finish();
}

TEST_F(Chat, ABadNameIsRefusedWith400BeforeAnyUpgrade) {
  WebSocketClient nobody = enter("no%20spaces");
  EXPECT_FALSE(nobody.accepted());
  EXPECT_TRUE(nobody.handler_finished());
  EXPECT_EQ(nobody.handshake().status(), 400);
}

TEST_F(Chat, ABinaryMessageClosesWith1003) {
  WebSocketClient ann = enter("ann");
  ann.send_binary("\x01\x02");
  harness.run_until_idle();
  EXPECT_EQ(ann.handler_close_code(), 1003);
  ann.finish();
}

TEST_F(Chat, AClientThatFallsBehindIsClosedWith1008AndTheRoomGoesOn) {
  WebSocketClient ann = enter("ann");
  WebSocketClient bob = enter("bob");
  harness.run_until_idle();
  // Five lines said in one go, before anyone's relay runs: past max_behind (4) for each listener.
  for (int n = 0; n < 5; ++n) ann.send_text("line " + std::to_string(n));
  harness.run_until_idle();
  EXPECT_EQ(ann.handler_close_code(), 1008);
  EXPECT_EQ(bob.handler_close_code(), 1008);
  WebSocketClient cat = enter("cat");  // the room itself is fine
  harness.run_until_idle();
  EXPECT_EQ(heard(cat), "{\"joined\":\"cat\",\"room\":\"lobby\"}\n");
  ann.finish();
  bob.finish();
  cat.finish();
}

}  // namespace
