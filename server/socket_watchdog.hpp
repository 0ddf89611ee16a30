// SocketWatchdog: deadlines for sockets whose pending I/O must not wait forever
// (a TLS handshake that stalls). Past its deadline a socket is shut down.
#pragma once

#include <chrono>
#include <cstdint>

#include "coro/scheduler.hpp"
#include "coro/task.hpp"

namespace tiffany {

/// Shuts a socket down (SHUT_RDWR) when its deadline passes.
///
/// Why this shape: the scheduler's only timer is Sleep and a Recv has no
/// deadline of its own. Shutting the socket down makes the pending Recv (or
/// Send) complete at once, with 0 bytes (or EPIPE), so the waiting task fails
/// on its ordinary path and cleans up itself: nothing is cancelled from the
/// outside and no memory is touched after the connection ends.
///
/// One watchdog per worker thread (`this_thread()`). Deadlines live in a list
/// sorted by time, and a single patrol task sleeps until the earliest one, so
/// a watched connection costs a list node, not a task or a timer.
/// Not thread-safe: used only by the tasks of the thread's scheduler.
class SocketWatchdog {
 public:
  using Clock = Scheduler::Clock;

  /// A deadline for `fd`, armed on construction and disarmed on destruction
  /// (or by disarm()). Lives in a task's frame; must not outlive `fd`.
  class Guard {
   public:
    Guard(int fd, Clock::duration timeout);
    Guard(const Guard&) = delete;
    Guard& operator=(const Guard&) = delete;
    ~Guard() { disarm(); }

    /// Stops the clock; the socket is left alone from now on.
    void disarm() noexcept;
    /// True if the deadline passed and the socket was shut down.
    bool fired() const noexcept { return fired_; }

   private:
    friend class SocketWatchdog;
    SocketWatchdog& watchdog_;
    int fd_;
    Clock::time_point deadline_;
    Guard* previous_ = nullptr;
    Guard* next_ = nullptr;
    bool armed_ = false;
    bool fired_ = false;
  };

  /// The calling thread's watchdog. Arming a guard needs a running Scheduler.
  static SocketWatchdog& this_thread() noexcept;

 private:
  void arm(Guard& guard);
  void unlink(Guard& guard) noexcept;
  void expire(Guard& guard) noexcept;
  Task<void> patrol(std::uint64_t generation);

  Guard* head_ = nullptr;  // earliest deadline first
  Guard* tail_ = nullptr;
  bool patrolling_ = false;
  Clock::time_point patrol_wakes_at_{};
  std::uint64_t generation_ = 0;  // a patrol of an older generation just exits
};

}  // namespace tiffany
