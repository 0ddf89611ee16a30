// Promise / Future / SharedFuture: a value handed from one task to others on the same thread.
#pragma once

#include <coroutine>
#include <cstdint>
#include <exception>
#include <memory>
#include <stdexcept>
#include <utility>

#include <tiffany/coro/broken_promise.hpp>
#include <tiffany/coro/cancelable_wait.hpp>
#include <tiffany/coro/kernel.hpp>
#include <tiffany/coro/scheduler.hpp>

namespace tiffany {

template <class T>
class Future;
template <class T>
class SharedFuture;

namespace detail {

// One task parked on a SharedFuture: a link in the state's list of waiters.
struct SharedWaiter {
  detail::TaskRecord* task = nullptr;
  std::uint32_t wait_sequence = 0;
  SharedWaiter* prev = nullptr;
  SharedWaiter* next = nullptr;
};

template <class T>
struct FutureState {
  ValueSlot<T> slot;
  std::exception_ptr error;
  bool ready = false;
  bool future_taken = false;
  detail::TaskRecord* waiter = nullptr;  // the task parked on the Future, if any
  std::uint32_t wait_sequence = 0;
  SharedWaiter* shared_waiters = nullptr;  // tasks parked on SharedFutures of it, in arrival order
  SharedWaiter* shared_tail = nullptr;

  void settle() {
    ready = true;
    if (waiter == nullptr && shared_waiters == nullptr) return;
    Scheduler& scheduler = Scheduler::current();
    if (waiter != nullptr) detail::Kernel(scheduler).wake_if_waiting(*std::exchange(waiter, nullptr), wait_sequence);
    while (SharedWaiter* shared = shared_waiters) {
      detail::TaskRecord& task = *shared->task;
      const std::uint32_t sequence = shared->wait_sequence;
      unlink(*shared);
      detail::Kernel(scheduler).wake_if_waiting(task, sequence);
    }
  }
  void link(SharedWaiter& shared) noexcept {
    shared.next = nullptr;
    shared.prev = shared_tail;
    (shared_tail != nullptr ? shared_tail->next : shared_waiters) = &shared;
    shared_tail = &shared;
  }
  void unlink(SharedWaiter& shared) noexcept {
    (shared.prev != nullptr ? shared.prev->next : shared_waiters) = shared.next;
    (shared.next != nullptr ? shared.next->prev : shared_tail) = shared.prev;
    shared.prev = shared.next = nullptr;
    shared.task = nullptr;
  }
};

// What a Future's and a SharedFuture's awaiters share: the state they wait
// on, and what a woken waiter throws (its own cancellation, or the error the
// promise was set with).
template <class T>
class FutureWait : protected CancelableWait {
 public:
  FutureWait(const FutureWait&) = delete;
  FutureWait& operator=(const FutureWait&) = delete;

 protected:
  explicit FutureWait(FutureState<T>& state) noexcept : state_(state) {}
  ~FutureWait() = default;
  void throw_if_failed() const {
    detail::Kernel::current().throw_if_canceled();
    if (state_.error) std::rethrow_exception(state_.error);
  }
  FutureState<T>& state_;
};

}  // namespace detail

/// The writing end. Set it once (value or exception); destroying it unset
/// gives the waiters BrokenPromise. Single-threaded: for completion from
/// another thread use ExternalPromise. It may outlive the scheduler of its
/// waiters (their tasks' frames deregister them when destroyed).
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

 private:
  void check_unset() const {
    if (state_->ready) throw std::logic_error("Promise set twice");
  }
  std::shared_ptr<detail::FutureState<T>> state_;
};

/// The reading end: `T value = co_await std::move(future);` parks the task
/// until the promise is set, then returns the value or rethrows the error.
/// A canceled waiter wakes at once with TaskCanceled.
///
/// Move-only, awaited by one task: a second task awaiting the same Future
/// while the first still waits gets std::logic_error. For many waiters of
/// one value, `std::move(future).share()` gives a copyable SharedFuture.
template <class T = void>
class Future {
 public:
  Future(Future&&) noexcept = default;
  Future& operator=(Future&&) noexcept = default;
  Future(const Future&) = delete;
  Future& operator=(const Future&) = delete;

  class Awaiter final : private detail::FutureWait<T> {
    using detail::FutureWait<T>::state_;

   public:
    explicit Awaiter(detail::FutureState<T>& state) noexcept : detail::FutureWait<T>(state) {}
    // Why: a task destroyed while parked here (its scheduler went away) must
    // not stay registered, or the promise would later wake a freed task.
    ~Awaiter() {
      if (task_ != nullptr && state_.waiter == task_) state_.waiter = nullptr;
    }

    bool await_ready() const {
      if (state_.waiter != nullptr) throw std::logic_error("a Future is awaited by one task at a time; share() it");
      return state_.ready || detail::Kernel::current().cancel_pending();
    }
    void await_suspend(std::coroutine_handle<> caller) noexcept {
      Scheduler& scheduler = Scheduler::current();
      detail::Kernel(scheduler).block_current(caller, this);
      task_ = state_.waiter = detail::Kernel(scheduler).current_task();
      state_.wait_sequence = task_->wait_sequence();
    }
    T await_resume() {
      this->throw_if_failed();
      return state_.slot.take();
    }

   private:
    void cancel_wait(detail::TaskRecord& task) noexcept override {
      state_.waiter = nullptr;
      detail::Kernel::current().wake(task);
    }
    detail::TaskRecord* task_ = nullptr;  // set while registered as the waiter
  };

  Awaiter operator co_await() && noexcept { return Awaiter(*state_); }
  bool ready() const noexcept { return state_->ready; }
  /// Turns this future into one any number of tasks may await.
  SharedFuture<T> share() && { return SharedFuture<T>(std::move(state_)); }

 private:
  friend class Promise<T>;
  explicit Future(std::shared_ptr<detail::FutureState<T>> state) noexcept : state_(std::move(state)) {}
  std::shared_ptr<detail::FutureState<T>> state_;
};

/// A future every holder may await, before or after the promise is set:
/// all waiters wake, each with a copy of the value (or the error rethrown).
/// Copyable; one thread. Use it to coalesce identical work: the first caller
/// starts it and keeps the promise, later callers await a copy.
template <class T = void>
class SharedFuture {
 public:
  class Awaiter final : private detail::FutureWait<T> {
    using detail::FutureWait<T>::state_;

   public:
    explicit Awaiter(detail::FutureState<T>& state) noexcept : detail::FutureWait<T>(state) {}
    ~Awaiter() {
      if (waiting_.task != nullptr) state_.unlink(waiting_);  // destroyed while parked
    }

    bool await_ready() const noexcept { return state_.ready || detail::Kernel::current().cancel_pending(); }
    void await_suspend(std::coroutine_handle<> caller) noexcept {
      Scheduler& scheduler = Scheduler::current();
      detail::Kernel(scheduler).block_current(caller, this);
      waiting_.task = detail::Kernel(scheduler).current_task();
      waiting_.wait_sequence = waiting_.task->wait_sequence();
      state_.link(waiting_);
    }
    T await_resume() const {
      this->throw_if_failed();
      if constexpr (!std::is_void_v<T>) return *state_.slot.value;
    }

   private:
    void cancel_wait(detail::TaskRecord& task) noexcept override {
      state_.unlink(waiting_);
      detail::Kernel::current().wake(task);
    }
    detail::SharedWaiter waiting_;
  };

  Awaiter operator co_await() const noexcept { return Awaiter(*state_); }
  bool ready() const noexcept { return state_->ready; }

 private:
  friend class Future<T>;
  explicit SharedFuture(std::shared_ptr<detail::FutureState<T>> state) noexcept : state_(std::move(state)) {}
  std::shared_ptr<detail::FutureState<T>> state_;
};

}  // namespace tiffany
