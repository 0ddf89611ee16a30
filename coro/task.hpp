// Task<T>: the coroutine type every Tiffany task and handler is written in.
// Lazy, move-only, and resumed by symmetric transfer in both directions.
#pragma once

#include <coroutine>
#include <cstddef>
#include <exception>
#include <optional>
#include <type_traits>
#include <utility>

#include <tiffany/coro/frame_allocator.hpp>

namespace tiffany {

namespace detail {
class TaskRecord;
}  // namespace detail

namespace detail {

class TaskPromiseBase;

/// Tells the scheduler that `root`, the root coroutine of the task it is
/// running, finished, and returns the coroutine to run next (none when
/// `root` is not such a root). Defined in scheduler.cpp.
std::coroutine_handle<> finish_spawned_task(TaskPromiseBase& root) noexcept;

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
      // Nobody awaits it: the root of a spawned task (the one the scheduler runs).
      return finish_spawned_task(promise);
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
  /// Records that this frame is suspended awaiting `child`, owned by the Task
  /// at `owner` (in this frame); cleared when the await resumes.
  void set_awaited(TaskPromiseBase* child, std::coroutine_handle<>* owner) noexcept {
    awaited_ = child;
    awaited_owner_ = owner;
  }
  const std::exception_ptr& exception() const noexcept { return exception_; }

  /// Destroys the frame `owner` holds (its promise: `root`) and, before it,
  /// every frame it is suspended on, innermost first: the order recursion
  /// would give (each child before the frame awaiting it), in a loop, so a
  /// suspended chain of any depth is destroyed in constant stack.
  static void destroy_chain(std::coroutine_handle<>& owner, TaskPromiseBase& root) noexcept {
    if (root.awaited_ != nullptr) {
      // Turn the links upward (the chain is going away; nothing else reads them).
      TaskPromiseBase* above = nullptr;
      for (TaskPromiseBase* frame = &root; frame != nullptr;) {
        TaskPromiseBase* below = std::exchange(frame->awaited_, above);
        above = frame;
        frame = below;
      }
      for (TaskPromiseBase* frame = above; frame != &root;) {  // `above`: the innermost
        TaskPromiseBase* parent = frame->awaited_;
        // Emptying the parent's Task first keeps its destructor from recursing.
        std::exchange(*parent->awaited_owner_, {}).destroy();  // destroys `frame`
        frame = parent;
      }
    }
    std::exchange(owner, {}).destroy();
  }

 protected:
  void rethrow_if_failed() const {
    if (exception_) std::rethrow_exception(exception_);
  }

 private:
  // Why no pointer to the task record: a frame that nobody awaits finishes
  // inside its task's run, where the scheduler knows the record; keeping a
  // leaf frame within 64 bytes keeps it in the smallest recycled size class.
  std::coroutine_handle<> continuation_;
  std::exception_ptr exception_;
  TaskPromiseBase* awaited_ = nullptr;                // the child task this frame is suspended on
  std::coroutine_handle<>* awaited_owner_ = nullptr;  // the Task in this frame that owns that child
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
  explicit Task(Handle handle) noexcept : frame_(handle) {}
  Task(Task&& other) noexcept : frame_(std::exchange(other.frame_, {})) {}
  Task& operator=(Task&& other) noexcept {
    if (this != &other) {
      destroy();
      frame_ = std::exchange(other.frame_, {});
    }
    return *this;
  }
  Task(const Task&) = delete;
  Task& operator=(const Task&) = delete;
  ~Task() { destroy(); }

  bool valid() const noexcept { return static_cast<bool>(frame_); }
  bool done() const noexcept { return frame_ && frame_.done(); }

  class Awaiter {
   public:
    explicit Awaiter(std::coroutine_handle<>& owner) noexcept : owner_(owner) {}
    bool await_ready() const noexcept { return !owner_ || owner_.done(); }
    template <class Parent>
    std::coroutine_handle<> await_suspend(std::coroutine_handle<Parent> awaiter) noexcept {
      promise_type& child = typed(owner_).promise();
      child.set_continuation(awaiter);
      if constexpr (std::is_base_of_v<detail::TaskPromiseBase, Parent>) {
        parent_ = &awaiter.promise();
        parent_->set_awaited(&child, &owner_);  // lets a suspended chain be destroyed without recursion
      }
      return owner_;  // symmetric transfer into the child
    }
    T await_resume() {
      if (parent_ != nullptr) parent_->set_awaited(nullptr, nullptr);
      return typed(owner_).promise().result();
    }

   private:
    std::coroutine_handle<>& owner_;  // the awaited Task's frame handle
    detail::TaskPromiseBase* parent_ = nullptr;
  };
  Awaiter operator co_await() & noexcept { return Awaiter(frame_); }
  Awaiter operator co_await() && noexcept { return Awaiter(frame_); }

  /// Gives up ownership of the frame (the scheduler takes it on spawn).
  Handle release() noexcept { return typed(std::exchange(frame_, {})); }

 private:
  static Handle typed(std::coroutine_handle<> frame) noexcept { return Handle::from_address(frame.address()); }
  void destroy() noexcept {
    if (frame_) detail::TaskPromiseBase::destroy_chain(frame_, typed(frame_).promise());
  }
  // Why type-erased: a frame awaiting this task points at this handle to
  // destroy it without knowing T (see TaskPromiseBase::destroy_chain).
  std::coroutine_handle<> frame_;
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
