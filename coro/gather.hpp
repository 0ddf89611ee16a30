// gather: run tasks concurrently and collect all their results, in order.
#pragma once

#include <cstddef>
#include <exception>
#include <memory>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include <tiffany/coro/promise.hpp>
#include <tiffany/coro/spawn.hpp>
#include <tiffany/coro/task.hpp>
#include <tiffany/coro/task_canceled.hpp>

namespace tiffany {
namespace detail {

// Shared by a gather and its children: counts finishers, keeps the first error.
struct GatherState {
  explicit GatherState(std::size_t children) : remaining(children) {}
  std::size_t remaining;
  bool settled = false;
  std::exception_ptr error;  // the first child's error, TaskCanceled included
  // Why a bare signal: the error travels in `error`, so a TaskCanceled out of
  // awaiting `done` can only be the gather's own cancellation.
  Promise<void> done;

  void child_succeeded() {
    if (--remaining == 0 && !settled) {
      settled = true;
      done.set_value();
    }
  }
  void child_failed(std::exception_ptr first_error) {
    if (std::exchange(settled, true)) return;
    error = std::move(first_error);
    done.set_value();
  }
  /// After `done`: the first error, if a child failed.
  void rethrow_if_failed() const {
    if (error) std::rethrow_exception(error);
  }
};

// A child of a gather: reports to the shared state instead of failing, so a
// child's error is raised once, by the gather, not logged as a task failure.
template <class T>
Task<std::optional<T>> gather_child(std::shared_ptr<GatherState> state, Task<T> task) {
  std::optional<T> result;
  try {
    result.emplace(co_await std::move(task));
  } catch (const TaskCanceled&) {
    state->child_failed(std::current_exception());
    throw;  // ends canceled, not failed
  } catch (...) {
    state->child_failed(std::current_exception());
    co_return std::nullopt;
  }
  state->child_succeeded();
  co_return result;
}

inline Task<bool> gather_void_child(std::shared_ptr<GatherState> state, Task<void> task) {
  try {
    co_await std::move(task);
  } catch (const TaskCanceled&) {
    state->child_failed(std::current_exception());
    throw;  // ends canceled, not failed
  } catch (...) {
    state->child_failed(std::current_exception());
    co_return false;
  }
  state->child_succeeded();
  co_return true;
}

// Waits until every child has finished or one failed; rethrows the first
// error. Canceling the gather cancels the children that still run.
template <class Handle>
Task<void> await_gathered(GatherState& state, std::vector<Handle>& handles) {
  Future<void> done = state.done.future();
  try {
    co_await std::move(done);
  } catch (const TaskCanceled&) {
    for (Handle& handle : handles) handle.cancel();
    throw;
  }
  state.rethrow_if_failed();
}

}  // namespace detail

/// Runs `tasks` concurrently (each as its own scheduler task) and returns
/// their results in input order. Fail-fast: the first error is rethrown as
/// soon as it happens (a child that ends canceled fails it with TaskCanceled,
/// like any other error); the other tasks keep running, detached, so they must
/// own what they use (not point into the caller's frame). Canceling the
/// gather cancels them all. No tasks: an empty result.
template <class T>
Task<std::vector<T>> gather(std::vector<Task<T>> tasks) {
  if (tasks.empty()) co_return std::vector<T>{};
  auto state = std::make_shared<detail::GatherState>(tasks.size());
  std::vector<JoinHandle<std::optional<T>>> handles;
  handles.reserve(tasks.size());
  for (Task<T>& task : tasks) handles.push_back(co_await Spawn{detail::gather_child(state, std::move(task))});
  co_await detail::await_gathered(*state, handles);
  // Why: `done` fires from the last child just before it returns, and no task
  // runs in between, so every child has finished: take results directly.
  std::vector<T> results;
  results.reserve(handles.size());
  for (auto& handle : handles) results.push_back(std::move(*handle.take_result()));
  co_return results;
}

/// gather for tasks without a value: returns when all have finished.
inline Task<void> gather(std::vector<Task<void>> tasks) {
  if (tasks.empty()) co_return;
  auto state = std::make_shared<detail::GatherState>(tasks.size());
  std::vector<JoinHandle<bool>> handles;
  handles.reserve(tasks.size());
  for (Task<void>& task : tasks) handles.push_back(co_await Spawn{detail::gather_void_child(state, std::move(task))});
  co_await detail::await_gathered(*state, handles);
  for (auto& handle : handles) (void)handle.take_result();  // all finished (see above)
}

/// gather over differently typed tasks: `auto [a, b] = co_await gather(f(), g());`
template <class... T>
Task<std::tuple<T...>> gather(Task<T>... tasks) {
  auto state = std::make_shared<detail::GatherState>(sizeof...(T));
  Future<void> done = state->done.future();
  std::tuple<JoinHandle<std::optional<T>>...> handles{
      Scheduler::current().spawn(detail::gather_child(state, std::move(tasks)))...};
  try {
    co_await std::move(done);
  } catch (const TaskCanceled&) {
    std::apply([](auto&... handle) { (handle.cancel(), ...); }, handles);
    throw;
  }
  state->rethrow_if_failed();
  co_return std::apply([](auto&... handle) { return std::tuple<T...>{std::move(*handle.take_result())...}; },
                       handles);
}

}  // namespace tiffany
