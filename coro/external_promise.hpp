// ExternalPromise: a value handed to a task from any other thread.
#pragma once

#include <coroutine>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <utility>

#include <tiffany/coro/broken_promise.hpp>
#include <tiffany/coro/cancelable_wait.hpp>
#include <tiffany/coro/kernel.hpp>
#include <tiffany/coro/remote_queue.hpp>
#include <tiffany/coro/scheduler.hpp>

namespace tiffany {

template <class T>
class ExternalFuture;

namespace detail {
template <class T>
struct ExternalState {
  std::mutex mutex;
  ValueSlot<T> slot;
  std::exception_ptr error;
  bool ready = false;
  bool future_taken = false;
  // The parked task, if any; only touched on its scheduler's thread, which
  // the completion reaches through the scheduler's RemoteQueue.
  std::shared_ptr<RemoteQueue> queue;
  detail::TaskRecord* waiter = nullptr;
  std::uint32_t wait_sequence = 0;

  // Call with `mutex` held, after storing the outcome.
  void settle_locked() {
    ready = true;
    if (waiter == nullptr) return;
    queue->post([task = std::exchange(waiter, nullptr), sequence = wait_sequence] {
      Scheduler& scheduler = Scheduler::current();
      detail::Kernel(scheduler).external_wait_ended();
      detail::Kernel(scheduler).wake_if_waiting(*task, sequence);
    });
    queue.reset();
  }
};
}  // namespace detail

/// The writing end, completable (once) from any thread; the waiting task
/// resumes on its own scheduler's thread, which is woken through its
/// RemoteQueue (the reactor's eventfd). Thread-safe by construction: all
/// shared state is behind one mutex, and the task is only touched on its
/// own thread. Destroying it unset gives the waiter BrokenPromise.
template <class T = void>
class ExternalPromise {
 public:
  ExternalPromise() : state_(std::make_shared<detail::ExternalState<T>>()) {}
  ExternalPromise(ExternalPromise&&) noexcept = default;
  ExternalPromise& operator=(ExternalPromise&&) noexcept = default;
  ~ExternalPromise() {
    if (!state_) return;
    std::lock_guard lock(state_->mutex);
    if (!state_->ready) {
      state_->error = std::make_exception_ptr(BrokenPromise{});
      state_->settle_locked();
    }
  }

  /// The reading end; callable once.
  ExternalFuture<T> future() {
    std::lock_guard lock(state_->mutex);
    if (std::exchange(state_->future_taken, true)) throw std::logic_error("ExternalPromise::future called twice");
    return ExternalFuture<T>(state_);
  }

  template <class... U>
  void set_value(U&&... value) {
    std::lock_guard lock(state_->mutex);
    check_unset();
    state_->slot.set(std::forward<U>(value)...);
    state_->settle_locked();
  }
  void set_exception(std::exception_ptr error) {
    std::lock_guard lock(state_->mutex);
    check_unset();
    state_->error = std::move(error);
    state_->settle_locked();
  }

 private:
  void check_unset() const {
    if (state_->ready) throw std::logic_error("ExternalPromise set twice");
  }
  std::shared_ptr<detail::ExternalState<T>> state_;
};

/// The reading end: `co_await std::move(future)` on a scheduler thread.
/// A canceled waiter wakes with TaskCanceled (the value, if it comes later,
/// is dropped). Move-only, awaited by one task (a second concurrent waiter
/// gets std::logic_error).
template <class T = void>
class ExternalFuture {
 public:
  ExternalFuture(ExternalFuture&&) noexcept = default;
  ExternalFuture& operator=(ExternalFuture&&) noexcept = default;
  ExternalFuture(const ExternalFuture&) = delete;
  ExternalFuture& operator=(const ExternalFuture&) = delete;

  class Awaiter final : private CancelableWait {
   public:
    explicit Awaiter(detail::ExternalState<T>& state) noexcept : state_(state) {}
    Awaiter(const Awaiter&) = delete;
    Awaiter& operator=(const Awaiter&) = delete;
    // Why: a task destroyed while parked here (its scheduler went away) must
    // not stay registered, or the completion would post a wake-up of a freed
    // task to a dead scheduler.
    ~Awaiter() {
      if (task_ == nullptr) return;
      bool was_registered = false;
      {
        std::lock_guard lock(state_.mutex);
        if (state_.waiter == task_) {
          state_.waiter = nullptr;
          state_.queue.reset();
          was_registered = true;
        }
      }
      Scheduler* scheduler = Scheduler::current_or_null();
      if (was_registered && scheduler != nullptr) detail::Kernel(*scheduler).external_wait_ended();
    }

    bool await_ready() const noexcept { return detail::Kernel::current().cancel_pending(); }
    bool await_suspend(std::coroutine_handle<> caller) {
      std::lock_guard lock(state_.mutex);
      if (state_.ready) return false;  // completed already: continue at once
      if (state_.waiter != nullptr) throw std::logic_error("an ExternalFuture is awaited by one task at a time");
      Scheduler& scheduler = Scheduler::current();
      detail::Kernel(scheduler).block_current(caller, this);
      state_.queue = scheduler.remote_queue();
      task_ = state_.waiter = detail::Kernel(scheduler).current_task();
      state_.wait_sequence = state_.waiter->wait_sequence();
      detail::Kernel(scheduler).external_wait_began();
      return true;
    }
    T await_resume() {
      detail::Kernel::current().throw_if_canceled();
      std::lock_guard lock(state_.mutex);
      // Why take it out: the completing thread may drop the state after us,
      // and the exception must not be freed there. Exception reference counts
      // live in libsupc++, which ThreadSanitizer cannot see, so a free on that
      // thread reads as a race with our handler's use of the exception.
      if (state_.error) std::rethrow_exception(std::exchange(state_.error, nullptr));
      return state_.slot.take();
    }

   private:
    void cancel_wait(detail::TaskRecord& task) noexcept override {
      bool still_registered = false;
      {
        std::lock_guard lock(state_.mutex);
        if (state_.waiter == &task) {
          state_.waiter = nullptr;
          state_.queue.reset();
          still_registered = true;
        }
      }
      // Otherwise the completion is already posted; it ends the wait and wakes us.
      if (still_registered) {
        Scheduler& scheduler = Scheduler::current();
        detail::Kernel(scheduler).external_wait_ended();
        detail::Kernel(scheduler).wake(task);
      }
    }
    detail::ExternalState<T>& state_;
    detail::TaskRecord* task_ = nullptr;  // set once registered as the waiter
  };

  Awaiter operator co_await() && noexcept { return Awaiter(*state_); }

 private:
  friend class ExternalPromise<T>;
  explicit ExternalFuture(std::shared_ptr<detail::ExternalState<T>> state) noexcept : state_(std::move(state)) {}
  std::shared_ptr<detail::ExternalState<T>> state_;
};

}  // namespace tiffany
