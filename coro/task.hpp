// Task<T>: the coroutine type every Tiffany task and handler is written in.
// Lazy, move-only, and resumed by symmetric transfer in both directions.
#pragma once

#include <coroutine>
#include <cstddef>
#include <exception>
#include <optional>
#include <utility>

#include "coro/frame_allocator.hpp"

namespace tiffany {

class TaskRecord;

namespace detail {

/// Tells the scheduler that the root coroutine of a spawned task finished and
/// returns the coroutine to run next. Defined in scheduler.cpp.
std::coroutine_handle<> finish_spawned_task(TaskRecord& record) noexcept;

/// What every Task promise shares: who to resume when the body finishes, and
/// the exception it ended with, if any.
class TaskPromiseBase {
 public:
  std::suspend_always initial_suspend() noexcept { return {}; }

  struct FinalAwaiter {
    bool await_ready() noexcept { return false; }
    template <class Promise>
    std::coroutine_handle<> await_suspend(std::coroutine_handle<Promise> finished) noexcept {
      // Why: returning the next handle (instead of calling resume()) is what
      // keeps a million-deep chain of co_awaits in constant stack.
      TaskPromiseBase& promise = finished.promise();
      if (promise.continuation_) return promise.continuation_;
      if (promise.record_ != nullptr) return finish_spawned_task(*promise.record_);
      return std::noop_coroutine();
    }
    void await_resume() noexcept {}
  };
  FinalAwaiter final_suspend() noexcept { return {}; }

  void unhandled_exception() noexcept { exception_ = std::current_exception(); }
  /// Ends the task with `error` without running it (cancel before start).
  void set_exception(std::exception_ptr error) noexcept { exception_ = std::move(error); }

  // Why: frames come from a per-thread recycler, so spawning and calling
  // coroutines on the hot path does not hit malloc.
  static void* operator new(std::size_t size) { return allocate_frame(size); }
  static void operator delete(void* frame, std::size_t size) noexcept { deallocate_frame(frame, size); }

  void set_continuation(std::coroutine_handle<> awaiter) noexcept { continuation_ = awaiter; }
  /// Marks this coroutine as the root of a scheduler task.
  void set_record(TaskRecord* record) noexcept { record_ = record; }
  const std::exception_ptr& exception() const noexcept { return exception_; }

 protected:
  void rethrow_if_failed() const {
    if (exception_) std::rethrow_exception(exception_);
  }

 private:
  std::coroutine_handle<> continuation_;
  TaskRecord* record_ = nullptr;
  std::exception_ptr exception_;
};

template <class T>
class TaskPromise;

}  // namespace detail

/// A lazily started coroutine producing a T (or an exception).
///
/// Ownership: the Task owns its coroutine frame and destroys it when the Task
/// is destroyed; awaiting it (`co_await task`) starts it and resumes the awaiter
/// with its result, or rethrows its exception. Not thread-safe: a task lives on
/// the thread of the scheduler that runs it.
template <class T = void>
class [[nodiscard]] Task {
 public:
  using promise_type = detail::TaskPromise<T>;
  using Handle = std::coroutine_handle<promise_type>;

  Task() noexcept = default;
  explicit Task(Handle handle) noexcept : handle_(handle) {}
  Task(Task&& other) noexcept : handle_(std::exchange(other.handle_, {})) {}
  Task& operator=(Task&& other) noexcept {
    if (this != &other) {
      destroy();
      handle_ = std::exchange(other.handle_, {});
    }
    return *this;
  }
  Task(const Task&) = delete;
  Task& operator=(const Task&) = delete;
  ~Task() { destroy(); }

  bool valid() const noexcept { return static_cast<bool>(handle_); }
  bool done() const noexcept { return handle_ && handle_.done(); }

  struct Awaiter {
    Handle handle;
    bool await_ready() const noexcept { return !handle || handle.done(); }
    std::coroutine_handle<> await_suspend(std::coroutine_handle<> awaiter) noexcept {
      handle.promise().set_continuation(awaiter);
      return handle;  // symmetric transfer into the child
    }
    T await_resume() { return handle.promise().result(); }
  };
  Awaiter operator co_await() const& noexcept { return Awaiter{handle_}; }
  Awaiter operator co_await() const&& noexcept { return Awaiter{handle_}; }

  /// Gives up ownership of the frame (the scheduler takes it on spawn).
  Handle release() noexcept { return std::exchange(handle_, {}); }

 private:
  void destroy() noexcept {
    if (handle_) std::exchange(handle_, {}).destroy();
  }
  Handle handle_;
};

namespace detail {

template <class T>
class TaskPromise final : public TaskPromiseBase {
 public:
  Task<T> get_return_object() noexcept { return Task<T>{Task<T>::Handle::from_promise(*this)}; }
  template <class U>
  void return_value(U&& value) {
    value_.emplace(std::forward<U>(value));
  }
  /// The task's value; rethrows its exception. Moves the value out.
  T result() {
    rethrow_if_failed();
    return std::move(*value_);
  }

 private:
  std::optional<T> value_;
};

template <>
class TaskPromise<void> final : public TaskPromiseBase {
 public:
  Task<void> get_return_object() noexcept { return Task<void>{Task<void>::Handle::from_promise(*this)}; }
  void return_void() noexcept {}
  void result() const { rethrow_if_failed(); }
};

}  // namespace detail
}  // namespace tiffany
