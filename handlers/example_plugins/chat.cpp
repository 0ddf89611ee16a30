// chat: an example plugin: chat rooms over WebSocket on the SDK's pub/sub, across workers and instances.
//   "chat.room": GET /chat?room=lobby&name=ann upgrades to a WebSocket. Each
//   text message the client sends is said in the room; every client in the
//   room, on any worker (and with `redis`, on any instance sharing it),
//   receives, as text:
//     {"room": "lobby", "joined": "ann"}              when someone comes in,
//     {"room": "lobby", "from": "ann", "text": "hi"}  what is said,
//     {"room": "lobby", "left": "ann"}                when someone goes.
//   When the room cannot be joined in 5 s (Redis is down) the client is
//   closed with 1013 (try again later); what cannot be said is answered
//   {"room": "lobby", "error": "not delivered; try again"}.
//   A name or room that is not 1 to 32 letters, digits, '-' or '_' is
//   answered 400 before any upgrade; a binary message closes with 1003; a
//   client that falls `max_behind` messages behind (default 64) is closed
//   with 1008. Route keys: those of pubsub::Channels (`bus`, "chat" here;
//   `redis`, `redis_prefix`), `max_behind`.
#include <picojson.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <tiffany/coro/race.hpp>
#include <tiffany/coro/with_timeout.hpp>
#include <tiffany/handlers/plugin_api.hpp>
#include <tiffany/handlers/pubsub.hpp>
#include <tiffany/http/json_body.hpp>
#include <tiffany/http/utf8.hpp>
#include <tiffany/http/websocket.hpp>

namespace {

using namespace std::chrono_literals;
using tiffany::Task;
using tiffany::http::WebSocket;

bool is_token(const std::string& text) {
  return !text.empty() && text.size() <= 32 && std::all_of(text.begin(), text.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
  });
}

// {"room": ROOM, KEY: VALUE, ...}: one event as the clients receive it.
std::string event(const std::string& room, std::initializer_list<std::pair<const char*, std::string>> fields) {
  picojson::object object;
  object["room"] = picojson::value(room);
  for (const auto& [key, value] : fields) object[key] = picojson::value(value);
  return picojson::value(std::move(object)).serialize();
}

class ChatRoom final : public tiffany::Handler {
 public:
  explicit ChatRoom(const tiffany::HandlerParams& params)
      : channels_(params, "chat"),  // its own bus unless the route names one
        max_behind_(static_cast<std::size_t>(params.integer_or("max_behind", 64, 1, 100'000))) {}

  Task<void> handle(tiffany::http::Request& request, tiffany::http::Response& response) override {
    const std::string room = request.query_param("room").value_or("lobby");
    const std::string name = request.query_param("name").value_or("");
    if (!is_token(room) || !is_token(name)) {
      tiffany::http::write_json_error(response, tiffany::http::Status::bad_request,
                                      "room and name: 1 to 32 letters, digits, '-' or '_'");
      co_return;
    }
    WebSocket* socket = co_await tiffany::http::accept_websocket(request, response);
    if (socket == nullptr) co_return;  // not a handshake: `response` holds the refusal

    tiffany::pubsub::Subscription subscription(channels_, max_behind_);
    const std::string channel = "chat." + room;
    bool live = true;
    try {
      // Returns once whatever is said from now on reaches this client; with Redis down, that waits.
      co_await tiffany::with_timeout(subscription.join(channel), 5s);
    } catch (const tiffany::TimeoutError&) {
      live = false;  // (no co_await inside a catch block: C++ forbids it)
    }
    if (!live) {
      socket->close(1013, "the room is unreachable; try again later");
      co_return;
    }
    channels_.publish(channel, event(room, {{"joined", name}}));
    // The two directions; the first to end (the client left, or fell behind) cancels the other.
    std::vector<Task<bool>> directions;
    directions.push_back(speak(*socket, channel, room, name));
    directions.push_back(listen(*socket, subscription));
    co_await tiffany::race(std::move(directions));
    subscription.close();
    channels_.publish(channel, event(room, {{"left", name}}));
  }

 private:
  // What the client says goes to the room.
  Task<bool> speak(WebSocket& socket, const std::string& channel, const std::string& room, const std::string& name) {
    for (;;) {
      std::optional<tiffany::http::WebSocketMessage> message = co_await socket.receive();
      if (!message) co_return true;  // the client closed
      if (!message->text) {
        socket.close(1003, "text only");
        co_return true;
      }
      const bool said = channels_.publish(channel, event(room, {{"from", name}, {"text", message->data}}));
      if (!said) {  // Redis is unreachable: nothing went out
        // Why a local: g++ 12 cannot keep a braced list's array alive across a co_await.
        const std::string refusal = event(room, {{"error", "not delivered; try again"}});
        const tiffany::http::Delivery sent = co_await socket.send_text(refusal);
        if (sent == tiffany::http::Delivery::closed) co_return true;
      }
    }
  }

  // What the room says goes to the client, as fast as it reads.
  static Task<bool> listen(WebSocket& socket, tiffany::pubsub::Subscription& subscription) {
    for (;;) {
      std::optional<tiffany::pubsub::Message> message = co_await subscription.next();
      if (!message) break;  // fell max_behind behind
      // Why check: whatever else publishes on the bus (or in Redis) may send bytes that are not text.
      if (!tiffany::http::is_valid_utf8(message->data())) continue;
      const tiffany::http::Delivery sent = co_await socket.send_text(message->data());
      if (sent == tiffany::http::Delivery::closed) co_return true;
    }
    socket.close(1008, "too slow to keep up with the room");
    co_return true;
  }

  tiffany::pubsub::Channels channels_;  // this worker's (a handler serves one)
  std::size_t max_behind_;
};

}  // namespace

extern "C" const unsigned tiffany_plugin_abi_version = tiffany::kPluginAbiVersion;

extern "C" void tiffany_plugin_init(tiffany::PluginRegistrar& registrar, unsigned /*abi_version*/) {
  registrar.add_handler("chat.room",
                        [](const tiffany::HandlerParams& params) { return std::make_unique<ChatRoom>(params); });
}
