// Subscriber: one pub/sub WebSocket's channels and its bounded queue of messages on their way to it.
#pragma once

#include <cstddef>
#include <deque>
#include <memory>
#include <set>
#include <string>

#include <tiffany/coro/task.hpp>
#include <tiffany/coro/wake_signal.hpp>
#include <tiffany/handlers/pubsub.hpp>
#include <tiffany/http/websocket.hpp>

#include "handlers/internal/pubsub/listener.hpp"

namespace tiffany::pubsub {

/// A client of the `pubsub` handler. Messages for it (from any channel, and
/// the handler's own answers, in order) wait in a queue that deliver() sends
/// from, as fast as the client reads; a client so slow that `max_pending`
/// messages wait is dropped (closed with 1008) instead of slowing the
/// publishers or growing without bound. Single-threaded: its worker's.
class Subscriber final : public Listener {
 public:
  Subscriber(http::WebSocket& socket, std::size_t max_pending) : socket_(socket), max_pending_(max_pending) {}

  /// Queues `message` (its data is the whole outgoing text, shared with the other subscribers).
  void offer(const Message& message) override;
  /// Redis confirmed the subscription: {"subscribed": "<channel>"}.
  void confirmed(const std::string& channel) override { acknowledge("subscribed", channel); }
  /// Queues the answer {"<key>": "<value>"} (subscribed, unsubscribed, error).
  void acknowledge(const char* key, const std::string& value);
  /// Sends what is queued, until stop() or the connection ends. Run it in a
  /// task of its own; it must not touch the socket after stop().
  static Task<void> deliver(std::shared_ptr<Subscriber> self);
  /// No more sending: the handler is returning (the socket is about to go).
  void stop() noexcept;
  bool dropped() const noexcept { return dropped_; }

  std::set<std::string> channels;  // subscribed to

 private:
  http::WebSocket& socket_;
  std::size_t max_pending_;
  std::deque<Message> pending_;
  WakeSignal wake_;
  bool stopped_ = false;
  bool dropped_ = false;
};

}  // namespace tiffany::pubsub
