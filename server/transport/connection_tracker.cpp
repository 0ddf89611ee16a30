// ConnectionTracker: membership list, room for more, and draining.
#include <tiffany/coro/kernel.hpp>

#include "server/transport/connection_tracker.hpp"

#include <utility>
#include <vector>

namespace tiffany {

ConnectionTracker::Slot::Slot(Shared, const Slot& of) noexcept
    : tracker_(of.tracker_), listener_(of.listener_), peer_(of.peer_), shared_(true) {
  if (++tracker_->size_ > tracker_->peak_) tracker_->peak_ = tracker_->size_;
  if (listener_ != nullptr) listener_->add();
}

std::optional<ConnectionTracker::Slot> ConnectionTracker::Slot::share() const {
  if (tracker_ == nullptr || tracker_->size_ >= tracker_->limit_) return std::nullopt;
  if (listener_ != nullptr && listener_->full()) return std::nullopt;
  if (peer_ != nullptr && !listener_->per_address()->admit_again(*peer_)) return std::nullopt;
  return Slot(Shared{}, *this);
}

ConnectionTracker::Slot::~Slot() {
  if (tracker_ == nullptr) return;
  if (!shared_) add_stat(Stat::connections_open, -1);
  if (listener_ != nullptr) listener_->remove(peer_);
  --tracker_->size_;
  for (Promise<void>& waiting : std::exchange(tracker_->room_, {})) waiting.set_value();  // each re-checks
  tracker_->maybe_finish_drain();
}

ConnectionTracker::Membership::Membership(ConnectionTracker& tracker, Deadline& deadline)
    : tracker_(tracker), deadline_(deadline), task_(detail::Kernel::current().current_task()) {
  tracker_.members_.push_front(*this);
}

ConnectionTracker::Membership::~Membership() {
  tracker_.members_.remove(*this);
}

void ConnectionTracker::Membership::set_idle(bool idle) {
  idle_ = idle;
  // Why: a connection that goes idle during a drain gets the same short grace.
  if (idle && tracker_.draining_) end_within_grace();
}

void ConnectionTracker::Membership::end_within_grace() {
  // Why never later than it was: a drain shortens an idle wait, it does not
  // lengthen one past its own timeout (or a busy connection's wait in its
  // task past its window: KeepAliveHold).
  const auto grace_ends = Scheduler::current().now() + tracker_.idle_grace_;
  const auto until = deadline_.armed_until();
  deadline_.rearm(until && *until < grace_ends ? *until : grace_ends);
}

Task<void> ConnectionTracker::wait_for_room() {
  while (size_ >= limit_) {
    Future<void> freed = room_.emplace_back().future();
    co_await std::move(freed);
  }
}

void ConnectionTracker::drain(std::chrono::milliseconds idle_grace, std::function<void()> on_drained) {
  draining_ = true;
  idle_grace_ = idle_grace;
  on_drained_ = std::move(on_drained);
  for (Membership* member = members_.front(); member != nullptr; member = members_.next(*member)) {
    if (member->idle_) member->end_within_grace();  // a request on its way still gets served
  }
  for (DrainListener* listener = drain_listeners_.front(); listener != nullptr;
       listener = drain_listeners_.next(*listener)) {
    listener->on_drain(idle_grace);
  }
  maybe_finish_drain();
}

void ConnectionTracker::maybe_finish_drain() {
  if (draining_ && size_ == 0 && on_drained_) std::exchange(on_drained_, nullptr)();
}

}  // namespace tiffany
