// The shop's handler "shop.assistant": a WebSocket that answers price questions as they come.
#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include <tiffany/coro/with_timeout.hpp>
#include <tiffany/handlers/plugin_api.hpp>
#include <tiffany/http/websocket.hpp>

namespace {

using namespace std::chrono_literals;

// {"method": "GET", "path": "/assistant", "handler": "shop.assistant", "with": {"prices": {"apple": 1.2}}}
class Assistant final : public tiffany::Handler {
 public:
  explicit Assistant(const tiffany::HandlerParams& params) {
    if (const picojson::value* prices = params.json("prices")) {
      if (!prices->is<picojson::object>()) throw tiffany::ParamError("prices", "expected an object of numbers");
      for (const auto& [item, price] : prices->get<picojson::object>()) {
        if (!price.is<double>()) throw tiffany::ParamError("prices", "the price of " + item + " is not a number");
        prices_[item] = price.get<double>();
      }
    }
  }

  tiffany::Task<void> handle(tiffany::http::Request& request, tiffany::http::Response& response) override {
    tiffany::http::WebSocketOptions options;
    options.subprotocols = {"shop.v1"};
    options.max_message_bytes = 1024;  // item names, not novels: longer closes with 1009
    tiffany::http::WebSocket* socket = co_await tiffany::http::accept_websocket(request, response, options);
    if (socket == nullptr) co_return;  // not a handshake: `response` holds the refusal (426, 400...)
    co_await socket->send_text("hello: name an item");
    for (;;) {
      std::optional<tiffany::http::WebSocketMessage> question;
      bool silent = false;
      try {
        // Why safe: a receive canceled by the timeout loses no message; the next one gets it.
        question = co_await tiffany::with_timeout(socket->receive(), 30s);
      } catch (const tiffany::TimeoutError&) {
        silent = true;  // (no co_await inside a catch block: C++ forbids it)
      }
      if (silent) {
        const tiffany::http::Delivery sent = co_await socket->send_text("still there? name an item");
        if (sent == tiffany::http::Delivery::closed) co_return;
        continue;
      }
      if (!question) co_return;  // the client closed (socket->close_code() says how)
      if (question->data == "bye") {
        socket->close(4000, "goodbye");  // the server finishes the close handshake
        co_return;
      }
      const auto price = prices_.find(question->data);
      const std::string answer = price == prices_.end() ? "we have no " + question->data
                                                        : question->data + ": " + std::to_string(price->second);
      const tiffany::http::Delivery sent = co_await socket->send_text(answer);  // waits while the client reads slowly
      if (sent == tiffany::http::Delivery::closed) co_return;
    }
  }

 private:
  std::map<std::string, double> prices_;
};

}  // namespace

void register_shop_assistant(tiffany::PluginRegistrar& registrar) {
  registrar.add_handler("shop.assistant", [](const tiffany::HandlerParams& params) {
    return std::make_unique<Assistant>(params);
  });
}
