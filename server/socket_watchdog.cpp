// SocketWatchdog: a sorted list of deadlines and one patrol task per thread.
#include "server/socket_watchdog.hpp"

#include <sys/socket.h>

#include "coro/sleep.hpp"

namespace tiffany {

SocketWatchdog::Guard::Guard(int fd, Clock::duration timeout)
    : watchdog_(SocketWatchdog::this_thread()), fd_(fd), deadline_(Clock::now() + timeout) {
  watchdog_.arm(*this);
}

void SocketWatchdog::Guard::disarm() noexcept {
  if (armed_) watchdog_.unlink(*this);
}

SocketWatchdog& SocketWatchdog::this_thread() noexcept {
  thread_local SocketWatchdog watchdog;
  return watchdog;
}

void SocketWatchdog::arm(Guard& guard) {
  // Why a new generation: a sleeping patrol cannot be woken early (its timer
  // would later wake the task wherever it waits next), so when this deadline
  // comes before the patrol's alarm, a fresh patrol takes over and the old
  // one exits when it wakes. Spawned first: if that throws, nothing changed.
  if (!patrolling_ || guard.deadline_ < patrol_wakes_at_) {
    (void)Scheduler::current().spawn(patrol(generation_ + 1));
    ++generation_;
    patrolling_ = true;
    patrol_wakes_at_ = guard.deadline_;
  }

  // Why walk from the tail: a listener's timeout is fixed, so a new deadline
  // is almost always the latest and the insertion is O(1).
  Guard* before = tail_;
  while (before != nullptr && before->deadline_ > guard.deadline_) before = before->previous_;
  guard.previous_ = before;
  guard.next_ = before != nullptr ? before->next_ : head_;
  (guard.next_ != nullptr ? guard.next_->previous_ : tail_) = &guard;
  (before != nullptr ? before->next_ : head_) = &guard;
  guard.armed_ = true;
}

void SocketWatchdog::unlink(Guard& guard) noexcept {
  (guard.previous_ != nullptr ? guard.previous_->next_ : head_) = guard.next_;
  (guard.next_ != nullptr ? guard.next_->previous_ : tail_) = guard.previous_;
  guard.previous_ = guard.next_ = nullptr;
  guard.armed_ = false;
}

void SocketWatchdog::expire(Guard& guard) noexcept {
  unlink(guard);
  guard.fired_ = true;
  ::shutdown(guard.fd_, SHUT_RDWR);
}

Task<void> SocketWatchdog::patrol(std::uint64_t generation) {
  // Why a guard object: if the scheduler is destroyed while this task sleeps,
  // the next scheduler on the thread must start a fresh patrol.
  struct EndOfPatrol {
    SocketWatchdog& self;
    std::uint64_t generation;
    ~EndOfPatrol() {
      if (generation == self.generation_) self.patrolling_ = false;
    }
  } end_of_patrol{*this, generation};

  while (generation == generation_ && head_ != nullptr) {
    const Clock::time_point now = Clock::now();
    while (head_ != nullptr && head_->deadline_ <= now) expire(*head_);
    if (head_ == nullptr) break;
    patrol_wakes_at_ = head_->deadline_;
    co_await Sleep{head_->deadline_ - now};
  }
}

}  // namespace tiffany
