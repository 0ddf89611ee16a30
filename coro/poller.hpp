// Poller: what the scheduler calls when it needs the outside world (the reactor).
#pragma once

#include <chrono>
#include <optional>

namespace tiffany {

/// The scheduler's view of an I/O backend. The reactor implements it; coro/
/// knows nothing else about I/O. Called only on the scheduler's thread,
/// except wake(), which any thread may call.
class Poller {
 public:
  virtual ~Poller() = default;

  /// Submits queued operations and wakes the tasks whose operations completed.
  /// Waits at most `timeout` for a first completion; nullopt waits until one
  /// arrives (or wake() is called), zero does not wait.
  virtual void poll(std::optional<std::chrono::nanoseconds> timeout) = 0;

  /// True while operations are in flight, i.e. polling may still wake a task.
  virtual bool has_pending() const noexcept = 0;

  /// Any thread: makes a poll() that is waiting (or the next one) return soon.
  virtual void wake() noexcept = 0;
};

}  // namespace tiffany
