// WebSocketClient::State: a handler under test behind a WebSocket: its request, response, task and sink.
#pragma once

#include <memory>
#include <string>

#include <tiffany/coro/scheduler.hpp>
#include <tiffany/handlers/testkit/plugin_harness.hpp>
#include <tiffany/handlers/testkit/websocket_client.hpp>
#include <tiffany/http/request.hpp>

#include "handlers/testkit/internal/scripted_websocket.hpp"
#include "http/engine/websocket/connection_upgrade.hpp"

namespace tiffany::testkit {

/// The response's sink under open_websocket: records streamed pieces as
/// CollectingSink does, and lets accept_websocket switch to a ScriptedWebSocket.
class UpgradingSink final : public http::BodySink, public http::websocket::ConnectionUpgrade {
 public:
  explicit UpgradingSink(Outcome& outcome) : outcome_(outcome) {}
  Task<http::Delivery> write_body(http::Response& response, std::string_view piece) override;
  Task<http::WebSocket*> upgrade_to_websocket(http::Response& response, http::websocket::UpgradeTerms terms,
                                              http::WebSocketOptions options) override;
  ScriptedWebSocket* socket() const noexcept { return socket_.get(); }

 private:
  Outcome& outcome_;
  std::unique_ptr<ScriptedWebSocket> socket_;
};

struct WebSocketClient::State {
  State(PluginHarness& owner, http::Request built, std::string route_pattern)
      : harness(owner), request(std::move(built)), route(std::move(route_pattern)) {}
  ScriptedWebSocket& socket();  // throws std::logic_error when the handler refused

  PluginHarness& harness;
  http::Request request;
  std::string route;
  Outcome outcome;
  UpgradingSink sink{outcome};
  JoinHandle<void> done;
  bool result_taken = false;  // the handler finished and its result was taken (done is empty then)

  bool finished() const noexcept { return result_taken || done.finished(); }
  /// Takes the finished handler's result: rethrows what it threw.
  void take_result() {
    result_taken = true;
    outcome.response.attach(nullptr);
    done.take_result();
  }
};

}  // namespace tiffany::testkit
