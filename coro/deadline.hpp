// Deadline: cancel the current task at a point in time unless it is done first.
#pragma once

#include <chrono>
#include <optional>

#include "coro/scheduler.hpp"

namespace tiffany {

/// Arms a deadline for the task that creates it: when the time comes, the
/// task is canceled (it sees TaskCanceled at its suspension point, e.g. a
/// pending Recv) and expired() turns true, so the task can tell a timeout
/// from other cancellations and answer it (a task may await again after
/// catching TaskCanceled). Destroying or disarming the Deadline first means
/// nothing happens. One deadline per task at a time; moving it is cheap
/// (rearm), which is what per-request timeouts on keep-alive connections do.
///
/// Create it inside the task it guards; it may then be moved (rearm) from
/// anywhere on that thread, e.g. by a server draining its connections.
class Deadline {
 public:
  explicit Deadline(Scheduler::Clock::time_point when)
      : scheduler_(Scheduler::current()), task_(scheduler_.current_task()) {
    rearm(when);
  }
  static Deadline after(std::chrono::nanoseconds delay) { return Deadline(Scheduler::current().now() + delay); }
  /// A deadline for the current task that is not armed yet (rearm() arms it).
  static Deadline unarmed() { return Deadline(); }
  Deadline(const Deadline&) = delete;
  Deadline& operator=(const Deadline&) = delete;
  ~Deadline() { disarm(); }

  /// Sets a new time (and re-arms a disarmed or expired deadline). Moving
  /// an expired deadline whose cancellation has not reached its task yet
  /// (the operation it interrupted finished anyway) takes that cancellation
  /// back when called from the task itself: the stage ended in time. From
  /// another task it cannot, and expired() stays true until the task has
  /// seen its TaskCanceled, so the task still tells it from a shutdown.
  void rearm(Scheduler::Clock::time_point when) {
    if (expired_ && scheduler_.withdraw_deadline_cancel(*task_) != Scheduler::PendingExpiry::on_its_way) {
      expired_ = false;
    }
    when_ = when;
    scheduler_.arm_deadline(*task_, *this, when);
  }
  void rearm_after(std::chrono::nanoseconds delay) { rearm(scheduler_.now() + delay); }
  /// Disarms it; an expiry whose cancellation has not reached the running
  /// task is taken back too (as rearm does), so nothing more happens.
  void disarm() noexcept {
    scheduler_.disarm_deadline(*task_, *this);
    when_.reset();
    if (expired_ && scheduler_.withdraw_deadline_cancel(*task_) == Scheduler::PendingExpiry::withdrawn) {
      expired_ = false;
    }
  }
  bool expired() const noexcept { return expired_; }
  /// When it will expire; nullopt if disarmed (or already expired).
  std::optional<Scheduler::Clock::time_point> armed_until() const noexcept { return when_; }
  /// Restores a time read from armed_until().
  void restore(std::optional<Scheduler::Clock::time_point> when) {
    if (when) {
      rearm(*when);
    } else {
      disarm();
    }
  }

 private:
  friend class Scheduler;
  Deadline() : scheduler_(Scheduler::current()), task_(scheduler_.current_task()) {}
  void expire() noexcept {
    expired_ = true;
    when_.reset();
  }

  Scheduler& scheduler_;
  TaskRecord* task_;
  std::optional<Scheduler::Clock::time_point> when_;
  bool expired_ = false;
};

}  // namespace tiffany
