// VerdictlessWire: a test ResponseWire whose verdict side does nothing.
#pragma once

#include <string_view>

#include "server/http/response_wire.hpp"

namespace tiffany::testing {

/// For tests of the Exchange that never reach a verdict (its sink, its
/// judgment): the upgrade and everything Exchange::respond asks of a wire
/// after the handler do nothing; the test's wire writes what it records.
class VerdictlessWire : public http::ResponseWire {
 public:
  Task<http::WebSocket*> upgrade_to_websocket(http::Response&, http::websocket::UpgradeTerms,
                                              http::WebSocketOptions) override {
    co_return nullptr;
  }
  void send_whole(const http::Response&, bool) override {}
  void end_stream(std::string_view, bool) override {}
  void cut() noexcept override {}
  Task<void> end_websocket(bool) override { co_return; }
  Sent sent() const noexcept override { return {}; }

 protected:
  ~VerdictlessWire() = default;
};

}  // namespace tiffany::testing
