// WakeSignal: a flag one task waits on and any code on its thread sets.
#pragma once

#include <optional>

#include <tiffany/coro/promise.hpp>
#include <tiffany/coro/task.hpp>

namespace tiffany {

/// An auto-reset event for one waiting task: set() from anywhere on the
/// thread (a callback, another task) wakes the waiter, or makes its next
/// wait() return at once. Setting it twice before a wait wakes once.
class WakeSignal {
 public:
  void set() {
    set_ = true;
    if (waiter_) {
      Promise<void> waking = std::move(*waiter_);
      waiter_.reset();
      waking.set_value();
    }
  }
  bool is_set() const noexcept { return set_; }
  /// Returns once set (at once if it already is), clearing it.
  Task<void> wait() {
    if (!set_) {
      Future<void> woken = waiter_.emplace().future();
      co_await std::move(woken);
    }
    set_ = false;
  }

 private:
  bool set_ = false;
  std::optional<Promise<void>> waiter_;
};

}  // namespace tiffany
