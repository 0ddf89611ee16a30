// Subscriber: the bounded queue, the drop of a slow client, and the delivery task.
#include "handlers/builtin/pubsub/subscriber.hpp"

#include <picojson.h>

#include <utility>

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
    const bool sent = co_await s.socket_.send_text(message.data());  // waits while the client reads slowly
    if (!sent) break;
  }
}

}  // namespace tiffany::pubsub
