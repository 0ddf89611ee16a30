// race: run tasks concurrently; the first to finish wins, the rest are canceled.
#pragma once

#include <cstddef>
#include <exception>
#include <memory>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

#include <tiffany/coro/join.hpp>
#include <tiffany/coro/promise.hpp>
#include <tiffany/coro/spawn.hpp>
#include <tiffany/coro/task.hpp>
#include <tiffany/coro/task_canceled.hpp>

namespace tiffany {

/// Which task won a race, and its value.
template <class T>
struct RaceResult {
  std::size_t index;
  T value;
};

namespace detail {

template <class T>
struct RaceState {
  // Set by the first racer to finish, or by the race before it cancels the
  // rest: a racer that ends after that reports nothing.
  bool settled = false;
  std::size_t winner = 0;
  std::optional<T> value;
  std::exception_ptr error;  // the winner's error, TaskCanceled included
  // Why a bare signal: the outcome travels in the fields above, so a
  // TaskCanceled out of awaiting `done` can only be the race's own.
  Promise<void> done;
  // The race's handles of every racer (its frame outlives them all): the
  // first to finish cancels the others at once.
  std::vector<JoinHandle<void>>* racers = nullptr;
};

// A racer: the first to finish (value, error or cancellation) settles the race.
template <class T>
Task<void> race_child(std::shared_ptr<RaceState<T>> state, std::size_t index, Task<T> task) {
  std::optional<T> result;
  std::exception_ptr error;
  bool canceled = false;
  try {
    result.emplace(co_await std::move(task));
  } catch (const TaskCanceled&) {
    error = std::current_exception();
    canceled = true;  // by the race (a loser), or by someone else: then the race raises it
  } catch (...) {
    error = std::current_exception();
  }
  if (!std::exchange(state->settled, true)) {
    // Why now, not when the race resumes: a loser woken in this same turn
    // (its value ready too) would otherwise run before the race and go past
    // its suspension point, taking what it waited for (a queued message)
    // into a result nobody reads. Canceled here, it unwinds at that point.
    for (std::size_t other = 0; state->racers != nullptr && other < state->racers->size(); ++other) {
      if (other != index) (*state->racers)[other].cancel();
    }
    state->winner = index;
    if (error) {
      state->error = error;
    } else {
      state->value = std::move(result);
    }
    state->done.set_value();
  }
  if (canceled) std::rethrow_exception(error);  // ends canceled, not failed: nothing to log
}

}  // namespace detail

/// Runs `tasks` concurrently; returns as soon as the first one finishes, with
/// its index and value, or rethrows the first error. A racer that ends
/// canceled by anyone but the race (its own Deadline, say) is such an error:
/// the race raises TaskCanceled at once. The others are canceled
/// (they see TaskCanceled at their suspension point and never run past it),
/// and race returns once they have unwound — at once on virtual time, and as
/// soon as the kernel releases any canceled I/O. Canceling the race cancels
/// them all.
/// Requires at least one task.
template <class T>
Task<RaceResult<T>> race(std::vector<Task<T>> tasks) {
  if (tasks.empty()) throw std::invalid_argument("race needs at least one task");
  auto state = std::make_shared<detail::RaceState<T>>();
  Future<void> done = state->done.future();
  std::vector<JoinHandle<void>> racers;
  racers.reserve(tasks.size());
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    racers.push_back(co_await Spawn{detail::race_child(state, i, std::move(tasks[i]))});
  }
  state->racers = &racers;  // before any racer runs: spawning does not suspend
  std::exception_ptr own_cancellation;
  try {
    co_await std::move(done);
  } catch (const TaskCanceled&) {
    own_cancellation = std::current_exception();
  }
  state->settled = true;  // from here on, racers end canceled by us: nothing to report
  for (JoinHandle<void>& racer : racers) racer.cancel();  // losers (the winner is finished: a no-op)
  // Why: wait until the losers have unwound (a canceled receive is released
  // by the kernel first), so none outlives data the caller may free next.
  for (JoinHandle<void>& racer : racers) {
    try {
      co_await Join{std::move(racer)};
    } catch (...) {  // TaskCanceled, as intended
    }
  }
  state->racers = nullptr;
  if (own_cancellation) std::rethrow_exception(own_cancellation);
  if (state->error) std::rethrow_exception(state->error);
  co_return RaceResult<T>{state->winner, std::move(*state->value)};
}

}  // namespace tiffany
