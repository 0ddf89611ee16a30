// SubscriptionState: an SDK Subscription as its worker's hub sees it: the bounded queue and the joins waiting on Redis.
#pragma once

#include <cstddef>
#include <deque>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include <tiffany/coro/promise.hpp>
#include <tiffany/coro/wake_signal.hpp>
#include <tiffany/handlers/pubsub.hpp>

#include "handlers/internal/pubsub/listener.hpp"
#include "handlers/internal/pubsub/worker_hub.hpp"

namespace tiffany::pubsub {

/// Single-threaded: the worker's. Holds its hub while it lives.
class SubscriptionState final : public Listener {
 public:
  SubscriptionState(std::shared_ptr<WorkerHub> hub, std::size_t max_pending)
      : hub_(std::move(hub)), max_pending_(max_pending) {}
  SubscriptionState(const SubscriptionState&) = delete;
  SubscriptionState& operator=(const SubscriptionState&) = delete;
  ~SubscriptionState() { end(); }

  void offer(const Message& message) override;
  void confirmed(const std::string& channel) override;

  /// Subscribes; a future that is ready once the subscription is live (or over).
  SharedFuture<void> join(const std::string& channel);
  void leave(const std::string& channel);
  /// Leaves everything and wakes every waiter: the subscription is over.
  void end();

  bool ended() const noexcept { return ended_; }
  bool overflowed() const noexcept { return overflowed_; }
  bool is_joined(const std::string& channel) const { return joined_.contains(channel); }
  /// Joined, and no longer waiting for Redis's confirmation.
  bool is_live(const std::string& channel) const {
    return !ended_ && joined_.contains(channel) && !unconfirmed_.contains(channel);
  }
  /// Marks a next() under way for its lifetime; a second at once is a std::logic_error.
  class Receiving {
   public:
    explicit Receiving(SubscriptionState& state);
    Receiving(const Receiving&) = delete;
    Receiving& operator=(const Receiving&) = delete;
    ~Receiving() { state_.receiving_ = false; }

   private:
    SubscriptionState& state_;
  };
  /// The oldest queued message, if any.
  std::optional<Message> take();
  WakeSignal& arrivals() noexcept { return arrivals_; }

 private:
  void release_joins(const std::string& channel);

  std::shared_ptr<WorkerHub> hub_;
  std::size_t max_pending_;
  std::set<std::string> joined_;
  struct Unconfirmed {
    Promise<void> promise;  // set when Redis confirms, the channel is left, or the subscription ends
    SharedFuture<void> live{std::move(promise.future()).share()};
  };
  std::unordered_map<std::string, Unconfirmed> unconfirmed_;  // joins waiting for Redis
  std::deque<Message> pending_;
  WakeSignal arrivals_;  // a message came, or the end
  bool ended_ = false;
  bool overflowed_ = false;
  bool receiving_ = false;  // a next() waits
};

}  // namespace tiffany::pubsub
