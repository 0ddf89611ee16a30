// SubscriptionState: queueing with the overflow drop, joins released on Redis's confirmation, the end.
#include "handlers/internal/pubsub/subscription_state.hpp"

#include <stdexcept>
#include <utility>

namespace tiffany::pubsub {

void SubscriptionState::offer(const Message& message) {
  if (ended_) return;
  if (pending_.size() >= max_pending_) {
    // Why drop, not wait: one slow subscriber must not hold up the publisher, or every other behind it.
    overflowed_ = true;
    end();
    return;
  }
  pending_.push_back(message);
  arrivals_.set();
}

SubscriptionState::Receiving::Receiving(SubscriptionState& state) : state_(state) {
  // Why refuse: the arrivals signal wakes one waiter; a second would silently break the first.
  if (state_.receiving_) throw std::logic_error("pubsub::Subscription::next: another task is already waiting in next()");
  state_.receiving_ = true;
}

void SubscriptionState::confirmed(const std::string& channel) { release_joins(channel); }

SharedFuture<void> SubscriptionState::join(const std::string& channel) {
  if (!ended_ && !joined_.contains(channel)) {
    joined_.insert(channel);
    if (!hub_->subscribe(channel, *this)) unconfirmed_.try_emplace(channel);  // its future: ready on confirmation
  }
  // Why one shared future per channel: joins repeated while Redis is away wait together, not one promise each.
  const auto waiting = unconfirmed_.find(channel);
  if (waiting != unconfirmed_.end()) return waiting->second.live;
  Promise<void> now;
  SharedFuture<void> ready = std::move(now.future()).share();
  now.set_value();
  return ready;
}

void SubscriptionState::leave(const std::string& channel) {
  if (joined_.erase(channel) == 0) return;
  hub_->unsubscribe(channel, *this);
  release_joins(channel);
}

void SubscriptionState::end() {
  if (std::exchange(ended_, true)) return;
  const std::set<std::string> joined = std::move(joined_);
  joined_.clear();
  for (const std::string& channel : joined) hub_->unsubscribe(channel, *this);
  auto waiting = std::move(unconfirmed_);
  unconfirmed_.clear();
  for (auto& [channel, joins] : waiting) joins.promise.set_value();
  pending_.clear();
  arrivals_.set();
}

std::optional<Message> SubscriptionState::take() {
  if (pending_.empty()) return std::nullopt;
  Message message = std::move(pending_.front());
  pending_.pop_front();
  return message;
}

void SubscriptionState::release_joins(const std::string& channel) {
  const auto found = unconfirmed_.find(channel);
  if (found == unconfirmed_.end()) return;
  Promise<void> joins = std::move(found->second.promise);
  unconfirmed_.erase(found);
  joins.set_value();
}

}  // namespace tiffany::pubsub
