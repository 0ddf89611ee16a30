// A plugin for the WebSocket tests: handlers that drive the SDK's WebSocket the ways a plugin may.
//   "wsprobe.three":      sends "one", "two", "three" and returns (the server closes with 1000);
//   "wsprobe.throw":      throws after the accept (the server closes with 1011);
//   "wsprobe.close":      closes with 4000 "done", then receives until the end;
//   "wsprobe.race":       echoes, each receive() racing a 1 ms Sleep (most receives lose the race);
//   "wsprobe.concurrent": echoes while a spawned task sends "tick 0".."tick 99" on the same socket;
//   "wsprobe.late":       sleeps 500 ms before accepting (a drain may begin meanwhile), then echoes;
//   "wsprobe.deaf":       accepts, then sleeps 2 s without receiving, and returns;
//   "wsprobe.flood":      sends 64 KiB messages without waiting for them (each send races a 1 ms
//                         Sleep), past max_queued_bytes (1 MiB) when the client does not read.
#include <chrono>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <tiffany/coro/join.hpp>
#include <tiffany/coro/race.hpp>
#include <tiffany/coro/scheduler.hpp>
#include <tiffany/coro/sleep.hpp>
#include <tiffany/handlers/plugin_api.hpp>
#include <tiffany/http/websocket.hpp>

namespace {

using tiffany::Task;
using tiffany::http::WebSocket;
using tiffany::http::WebSocketMessage;

class Three final : public tiffany::Handler {
 public:
  explicit Three(const tiffany::HandlerParams&) {}
  Task<void> handle(tiffany::http::Request& request, tiffany::http::Response& response) override {
    WebSocket* socket = co_await tiffany::http::accept_websocket(request, response);
    if (socket == nullptr) co_return;
    for (const char* word : {"one", "two", "three"}) {
      const tiffany::http::Delivery sent = co_await socket->send_text(word);
      if (sent == tiffany::http::Delivery::closed) co_return;
    }
  }
};

class Throw final : public tiffany::Handler {
 public:
  explicit Throw(const tiffany::HandlerParams&) {}
  Task<void> handle(tiffany::http::Request& request, tiffany::http::Response& response) override {
    WebSocket* socket = co_await tiffany::http::accept_websocket(request, response);
    if (socket == nullptr) co_return;
    throw std::runtime_error("wsprobe.throw was asked to");
  }
};

class Close final : public tiffany::Handler {
 public:
  explicit Close(const tiffany::HandlerParams&) {}
  Task<void> handle(tiffany::http::Request& request, tiffany::http::Response& response) override {
    WebSocket* socket = co_await tiffany::http::accept_websocket(request, response);
    if (socket == nullptr) co_return;
    socket->close(4000, "done");
    for (;;) {
      std::optional<WebSocketMessage> message = co_await socket->receive();
      if (!message) break;
    }
  }
};

// The racer that loses when a message is there: a Sleep, then "no message".
Task<std::optional<WebSocketMessage>> nothing_after(std::chrono::milliseconds wait) {
  co_await tiffany::Sleep(wait);
  co_return std::nullopt;
}

class Race final : public tiffany::Handler {
 public:
  explicit Race(const tiffany::HandlerParams&) {}
  Task<void> handle(tiffany::http::Request& request, tiffany::http::Response& response) override {
    WebSocket* socket = co_await tiffany::http::accept_websocket(request, response);
    if (socket == nullptr) co_return;
    for (;;) {
      std::vector<Task<std::optional<WebSocketMessage>>> racers;
      racers.push_back(socket->receive());
      racers.push_back(nothing_after(std::chrono::milliseconds(1)));
      tiffany::RaceResult<std::optional<WebSocketMessage>> first = co_await tiffany::race(std::move(racers));
      if (first.index == 1) continue;  // the Sleep won: receive() was canceled, nothing may be lost
      if (!first.value) break;
      const tiffany::http::Delivery sent = co_await socket->send(first.value->data, first.value->text);
      if (sent == tiffany::http::Delivery::closed) break;
    }
  }
};

// Why a free function with plain arguments: a coroutine lambda's captures would die before it runs.
Task<void> tick(WebSocket* socket, int count) {
  for (int i = 0; i < count; ++i) {
    const tiffany::http::Delivery sent = co_await socket->send_text("tick " + std::to_string(i));
    if (sent == tiffany::http::Delivery::closed) co_return;
    co_await tiffany::Sleep(std::chrono::milliseconds(i % 10 == 0 ? 1 : 0));
  }
}

class Concurrent final : public tiffany::Handler {
 public:
  explicit Concurrent(const tiffany::HandlerParams&) {}
  Task<void> handle(tiffany::http::Request& request, tiffany::http::Response& response) override {
    WebSocket* socket = co_await tiffany::http::accept_websocket(request, response);
    if (socket == nullptr) co_return;
    tiffany::JoinHandle<void> ticker = tiffany::Scheduler::current().spawn(tick(socket, 100));
    for (;;) {
      std::optional<WebSocketMessage> message = co_await socket->receive();
      if (!message) break;
      const tiffany::http::Delivery sent = co_await socket->send(message->data, message->text);
      if (sent == tiffany::http::Delivery::closed) break;
    }
    // Why join: the socket is valid only until this handler returns.
    co_await tiffany::Join<void>(std::move(ticker));
  }
};

class Late final : public tiffany::Handler {
 public:
  explicit Late(const tiffany::HandlerParams&) {}
  Task<void> handle(tiffany::http::Request& request, tiffany::http::Response& response) override {
    co_await tiffany::Sleep(std::chrono::milliseconds(500));
    WebSocket* socket = co_await tiffany::http::accept_websocket(request, response);
    if (socket == nullptr) co_return;  // `response` holds the refusal
    for (;;) {
      std::optional<WebSocketMessage> message = co_await socket->receive();
      if (!message) break;
      const tiffany::http::Delivery sent = co_await socket->send(message->data, message->text);
      if (sent == tiffany::http::Delivery::closed) break;
    }
  }
};

class Deaf final : public tiffany::Handler {
 public:
  explicit Deaf(const tiffany::HandlerParams&) {}
  Task<void> handle(tiffany::http::Request& request, tiffany::http::Response& response) override {
    WebSocket* socket = co_await tiffany::http::accept_websocket(request, response);
    if (socket == nullptr) co_return;
    co_await tiffany::Sleep(std::chrono::seconds(2));
  }
};

Task<tiffany::http::Delivery> closed_after(std::chrono::milliseconds wait) {
  co_await tiffany::Sleep(wait);
  co_return tiffany::http::Delivery::closed;
}

class Flood final : public tiffany::Handler {
 public:
  explicit Flood(const tiffany::HandlerParams&) {}
  Task<void> handle(tiffany::http::Request& request, tiffany::http::Response& response) override {
    WebSocket* socket = co_await tiffany::http::accept_websocket(request, response);
    if (socket == nullptr) co_return;
    const std::string piece(64 * 1024, 'f');
    // Why race each send: a send canceled while it waits leaves its message queued, so the
    // queue grows past max_queued_bytes, as with senders that never wait.
    while (socket->is_open()) {
      std::vector<Task<tiffany::http::Delivery>> racers;
      racers.push_back(socket->send_binary(piece));
      racers.push_back(closed_after(std::chrono::milliseconds(1)));
      const tiffany::RaceResult<tiffany::http::Delivery> first = co_await tiffany::race(std::move(racers));
      if (first.index == 0 && first.value == tiffany::http::Delivery::closed) break;
    }
    for (;;) {
      std::optional<WebSocketMessage> message = co_await socket->receive();
      if (!message) break;
    }
  }
};

template <class Made>
std::unique_ptr<tiffany::Handler> make(const tiffany::HandlerParams& params) {
  return std::make_unique<Made>(params);
}

}  // namespace

extern "C" const unsigned tiffany_plugin_abi_version = tiffany::kPluginAbiVersion;

extern "C" void tiffany_plugin_init(tiffany::PluginRegistrar& registrar, unsigned) {
  registrar.add_handler("wsprobe.three", &make<Three>);
  registrar.add_handler("wsprobe.throw", &make<Throw>);
  registrar.add_handler("wsprobe.close", &make<Close>);
  registrar.add_handler("wsprobe.race", &make<Race>);
  registrar.add_handler("wsprobe.concurrent", &make<Concurrent>);
  registrar.add_handler("wsprobe.late", &make<Late>);
  registrar.add_handler("wsprobe.flood", &make<Flood>);
  registrar.add_handler("wsprobe.deaf", &make<Deaf>);
}
