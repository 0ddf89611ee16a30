// Deadline: cancel the current task at a point in time unless it is done first.
#pragma once

#include <chrono>
#include <optional>
#include <utility>

#include <tiffany/coro/kernel.hpp>
#include <tiffany/coro/scheduler.hpp>
#include <tiffany/coro/task.hpp>
#include <tiffany/coro/task_canceled.hpp>

namespace tiffany {

/// What a wait under a deadline came to: the value, or "timed out".
template <class T>
class [[nodiscard]] Timed {
 public:
  static Timed timed_out_now() { return Timed(); }
  explicit Timed(T value) : value_(std::move(value)) {}
  bool timed_out() const noexcept { return !value_; }
  /// The value; only when !timed_out().
  T& operator*() noexcept { return *value_; }
  const T& operator*() const noexcept { return *value_; }
  T* operator->() noexcept { return &*value_; }
  const T* operator->() const noexcept { return &*value_; }

 private:
  Timed() = default;
  std::optional<T> value_;
};

/// A wait with no value under a deadline: done, or timed out.
template <>
class [[nodiscard]] Timed<void> {
 public:
  static Timed timed_out_now() { return Timed(true); }
  Timed() = default;
  bool timed_out() const noexcept { return timed_out_; }

 private:
  explicit Timed(bool timed_out) : timed_out_(timed_out) {}
  bool timed_out_ = false;
};

class Deadline;

namespace detail {
/// Awaits a Task for Deadline::guard: the task's value, or Timed's "timed
/// out" when the deadline's cancellation ends it. Why an awaiter and not a
/// coroutine: no frame per guarded wait, on the hot path of every read.
template <class T>
class DeadlineGuard {
 public:
  DeadlineGuard(const Deadline& deadline, Task<T> task)
      : deadline_(deadline), task_(std::move(task)), awaiter_(std::move(task_).operator co_await()) {}
  DeadlineGuard(const DeadlineGuard&) = delete;
  DeadlineGuard& operator=(const DeadlineGuard&) = delete;

  bool await_ready() const noexcept { return awaiter_.await_ready(); }
  template <class Parent>
  std::coroutine_handle<> await_suspend(std::coroutine_handle<Parent> parent) noexcept {
    return awaiter_.await_suspend(parent);
  }
  Timed<T> await_resume();

 private:
  const Deadline& deadline_;
  Task<T> task_;
  typename Task<T>::Awaiter awaiter_;  // refers to task_
};
}  // namespace detail

/// Arms a deadline for the task that creates it: when the time comes, the
/// task is canceled (it sees TaskCanceled at its suspension point, e.g. a
/// pending Recv) and expired() turns true, so the task can tell a timeout
/// from other cancellations and answer it (guard() does that telling).
/// Destroying or disarming the Deadline first means nothing happens. Moving
/// it is cheap (rearm), which is what per-stage timeouts on keep-alive
/// connections do.
///
/// Deadlines nest: one made while another of the same task lives (a
/// handler's inside its connection's, with_timeout inside either) guards
/// the wait inside it, and the outer one still holds: whichever comes first
/// cancels the task, and each reads expired() if its own time had come. So
/// a guard on the inner one rethrows the outer one's expiry to the guard on
/// the outer one. Destroy them innermost first (they are locals).
///
/// Create it inside the task it guards; it may then be moved (rearm) from
/// anywhere on that thread, e.g. by a server draining its connections.
class Deadline {
 public:
  explicit Deadline(Scheduler::Clock::time_point when) : Deadline() { rearm(when); }
  static Deadline after(std::chrono::nanoseconds delay) { return Deadline(Scheduler::current().now() + delay); }
  /// A deadline for the current task that is not armed yet (rearm() arms it).
  static Deadline unarmed() { return Deadline(); }
  Deadline(const Deadline&) = delete;
  Deadline& operator=(const Deadline&) = delete;
  ~Deadline() {
    disarm();
    detail::Kernel(scheduler_).leave_deadline(*task_, *this);
  }

  /// Sets a new time (and re-arms a disarmed or expired deadline). Moving
  /// an expired deadline whose cancellation has not reached its task yet
  /// (the operation it interrupted finished anyway) takes that cancellation
  /// back when called from the task itself: the stage ended in time. From
  /// another task it cannot, and expired() stays true until the task has
  /// seen its TaskCanceled, so the task still tells it from a shutdown.
  void rearm(Scheduler::Clock::time_point when) {
    if (expired_ &&
        detail::Kernel(scheduler_).withdraw_deadline_cancel(*task_, *this) != Scheduler::PendingExpiry::on_its_way) {
      expired_ = false;
    }
    when_ = when;
    detail::Kernel(scheduler_).deadline_moved(*task_, when);
  }
  void rearm_after(std::chrono::nanoseconds delay) { rearm(scheduler_.now() + delay); }
  /// Disarms it; an expiry whose cancellation has not reached the running
  /// task is taken back too (as rearm does), so nothing more happens.
  void disarm() noexcept {
    when_.reset();
    if (expired_ &&
        detail::Kernel(scheduler_).withdraw_deadline_cancel(*task_, *this) == Scheduler::PendingExpiry::withdrawn) {
      expired_ = false;
    }
  }
  bool expired() const noexcept { return expired_; }

  /// Awaits `task` under this deadline: `co_await deadline.guard(read())`
  /// gives Timed<T>, its value or "timed out" if this deadline ended it.
  /// Any other cancellation (a shutdown, an outer deadline) is rethrown, so
  /// no caller catches TaskCanceled to tell them apart. The deadline is not
  /// moved: arm it for the stage first. Only for the task that owns it.
  template <class T>
  detail::DeadlineGuard<T> guard(Task<T> task) const {
    return detail::DeadlineGuard<T>(*this, std::move(task));
  }
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
  Deadline()
      : scheduler_(Scheduler::current()),
        task_(detail::Kernel(scheduler_).current_task()),
        outer_(detail::Kernel(scheduler_).enter_deadline(*task_, *this)) {}
  void expire() noexcept {
    expired_ = true;
    expiry_pending_ = true;
    when_.reset();
  }

  Scheduler& scheduler_;
  detail::TaskRecord* task_;
  Deadline* outer_;  // the task's deadline around this one, if any
  std::optional<Scheduler::Clock::time_point> when_;
  bool expired_ = false;
  bool expiry_pending_ = false;  // its cancellation has not reached the task yet
};

template <class T>
Timed<T> detail::DeadlineGuard<T>::await_resume() {
  try {
    if constexpr (std::is_void_v<T>) {
      awaiter_.await_resume();
      return Timed<void>();
    } else {
      return Timed<T>(awaiter_.await_resume());
    }
  } catch (const TaskCanceled&) {
    if (!deadline_.expired()) throw;  // not ours: a shutdown, or the task's own cancel
    return Timed<T>::timed_out_now();
  }
}

}  // namespace tiffany
