// Reactor: the I/O backend interface. One per worker thread, beside its Scheduler.
#pragma once

#include <string>

#include <tiffany/coro/poller.hpp>
#include <tiffany/reactor/io_operation.hpp>

namespace tiffany {

/// Starts operations for parked tasks and wakes them when the kernel answers.
/// The scheduler drives it through the Poller interface.
///
/// Threading: one per thread; while it exists it is that thread's
/// `Reactor::current()`. Construct it before the Scheduler that polls it, so
/// it outlives the tasks (and their in-flight operations).
class Reactor : public Poller {
 public:
  Reactor();
  Reactor(const Reactor&) = delete;
  Reactor& operator=(const Reactor&) = delete;
  ~Reactor() override;

  /// The reactor of the calling thread; aborts if there is none.
  static Reactor& current() noexcept;

  /// Makes `reactor` the thread's current one for the scope's life, then
  /// restores the one before: with Scheduler::CurrentScope, how a driver of
  /// several workers on one thread (Scheduler::SharedThread) switches
  /// between them. A reactor built while a SharedThread lives is not made
  /// current by its constructor.
  class CurrentScope {
   public:
    explicit CurrentScope(Reactor& reactor) noexcept;
    ~CurrentScope();
    CurrentScope(const CurrentScope&) = delete;
    CurrentScope& operator=(const CurrentScope&) = delete;

   private:
    Reactor* previous_;
  };

  /// Queues `op`; it is submitted at the next poll. `op` must stay put until
  /// it completes or is canceled.
  virtual void start(IoOperation& op) = 0;
  /// Cancels an in-flight `op` and returns only once the backend no longer
  /// refers to it (or its buffers). Its task is not woken.
  virtual void cancel(IoOperation& op) noexcept = 0;
  /// Asks the backend to cancel `op` without waiting; `op` completes (and
  /// wakes its task) when the backend has let go of it.
  virtual void cancel_async(IoOperation& op) noexcept = 0;
  /// One line for start-up logs, e.g. "io_uring (single issuer, deferred task run)".
  virtual std::string describe() const = 0;
  /// True when starting and canceling an operation cost no system call of
  /// their own (io_uring queues both with the next submission); false when
  /// each is one (epoll_ctl), so a caller may prefer a cheaper check than a
  /// watch it would soon cancel (plugin ABI 7).
  virtual bool queues_operations() const noexcept { return false; }
};

}  // namespace tiffany
