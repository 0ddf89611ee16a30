// Subscriber: the bounded queue, the drop of a slow client, and the delivery task.
#include "handlers/builtin/pubsub/subscriber.hpp"

#include <picojson.h>

#include <utility>

#include <tiffany/http/utf8.hpp>

namespace tiffany::pubsub {

void Subscriber::offer(const Message& message) {
  if (stopped_ || dropped_) return;
  if (pending_.size() >= max_pending_) {
    // Why drop, not wait: one slow client must not hold up the publisher, or
    // every other subscriber behind it.
    dropped_ = true;
    pending_.clear();
    if (socket_.is_open()) socket_.close(1008, "subscriber too slow");
    wake_.set();
    return;
  }
  pending_.push_back(message);
  wake_.set();
}

void Subscriber::acknowledge(const char* key, const std::string& value) {
  picojson::object object;
  object[key] = picojson::value(value);
  offer(Message(value, picojson::value(std::move(object)).serialize()));
}

void Subscriber::stop() noexcept {
  stopped_ = true;
  pending_.clear();
  wake_.set();
}

Task<void> Subscriber::deliver(std::shared_ptr<Subscriber> self) {
  Subscriber& s = *self;
  while (!s.stopped_ && !s.dropped_) {
    if (s.pending_.empty()) {
      co_await s.wake_.wait();
      continue;
    }
    const Message message = std::move(s.pending_.front());
    s.pending_.pop_front();
    // Why binary for bytes that are not UTF-8: anything on the bus (a plugin, or Redis) may publish
    // them; a text frame would be refused, a binary one delivers them as they are.
    const bool text = http::is_valid_utf8(message.data());
    const http::Delivery sent = co_await s.socket_.send(message.data(), text);  // waits while the client reads slowly
    if (sent == http::Delivery::closed) break;
  }
}

}  // namespace tiffany::pubsub
