// Promise / Future: a value handed from one task to another on the same thread.
#pragma once

#include <coroutine>
#include <cstdint>
#include <exception>
#include <memory>
#include <stdexcept>
#include <utility>

#include "coro/broken_promise.hpp"
#include "coro/cancelable_wait.hpp"
#include "coro/scheduler.hpp"

namespace tiffany {

template <class T>
class Future;

namespace detail {
template <class T>
struct FutureState {
  ValueSlot<T> slot;
  std::exception_ptr error;
  bool ready = false;
  bool future_taken = false;
  TaskRecord* waiter = nullptr;  // the task parked in co_await, if any
  std::uint32_t wait_sequence = 0;

  void settle() {
    ready = true;
    if (waiter != nullptr) Scheduler::current().wake_if_waiting(*std::exchange(waiter, nullptr), wait_sequence);
  }
};
}  // namespace detail

/// The writing end. Set it once (value or exception); destroying it unset
/// gives the waiter BrokenPromise. Single-threaded: for completion from
/// another thread use ExternalPromise.
template <class T = void>
class Promise {
 public:
  Promise() : state_(std::make_shared<detail::FutureState<T>>()) {}
  Promise(Promise&&) noexcept = default;
  Promise& operator=(Promise&&) noexcept = default;
  ~Promise() {
    if (state_ && !state_->ready) state_->error = std::make_exception_ptr(BrokenPromise{}), state_->settle();
  }

  /// The reading end; callable once.
  Future<T> future() {
    if (std::exchange(state_->future_taken, true)) throw std::logic_error("Promise::future called twice");
    return Future<T>(state_);
  }

  template <class... U>
  void set_value(U&&... value) {
    check_unset();
    state_->slot.set(std::forward<U>(value)...);
    state_->settle();
  }
  void set_exception(std::exception_ptr error) {
    check_unset();
    state_->error = std::move(error);
    state_->settle();
  }
  bool is_set() const noexcept { return state_->ready; }

 private:
  void check_unset() const {
    if (state_->ready) throw std::logic_error("Promise set twice");
  }
  std::shared_ptr<detail::FutureState<T>> state_;
};

/// The reading end: `T value = co_await std::move(future);` parks the task
/// until the promise is set, then returns the value or rethrows the error.
/// A canceled waiter wakes at once with TaskCanceled.
template <class T = void>
class Future {
 public:
  class Awaiter final : private CancelableWait {
   public:
    explicit Awaiter(detail::FutureState<T>& state) noexcept : state_(state) {}
    bool await_ready() const noexcept { return state_.ready || Scheduler::current().cancel_pending(); }
    void await_suspend(std::coroutine_handle<> caller) noexcept {
      Scheduler& scheduler = Scheduler::current();
      scheduler.block_current(caller, this);
      state_.waiter = scheduler.current_task();
      state_.wait_sequence = state_.waiter->wait_sequence();
    }
    T await_resume() {
      Scheduler::current().throw_if_canceled();
      if (state_.error) std::rethrow_exception(state_.error);
      return state_.slot.take();
    }

   private:
    void cancel_wait(TaskRecord& task) noexcept override {
      state_.waiter = nullptr;
      Scheduler::current().wake(task);
    }
    detail::FutureState<T>& state_;
  };

  Awaiter operator co_await() && noexcept { return Awaiter(*state_); }
  bool ready() const noexcept { return state_->ready; }

 private:
  friend class Promise<T>;
  explicit Future(std::shared_ptr<detail::FutureState<T>> state) noexcept : state_(std::move(state)) {}
  std::shared_ptr<detail::FutureState<T>> state_;
};

}  // namespace tiffany
