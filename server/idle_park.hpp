// IdlePark: where plain connections wait between requests, with no task and no buffer.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>

#include "coro/scheduler.hpp"
#include "coro/task.hpp"
#include "reactor/io_operation.hpp"
#include "reactor/read_lease.hpp"
#include "reactor/unique_fd.hpp"
#include "server/connection_tracker.hpp"

namespace tiffany {

/// A plain connection, whichever holds it: the park or the task serving it.
struct PlainConnection {
  UniqueFd socket;
  std::string peer;
  ConnectionTracker::Slot slot;
};

/// The idle plain connections of one listener on one worker. An idle
/// connection is not a task: it is one small entry whose pooled receive is
/// detached (IoOperation::start_detached), so it holds no coroutine frame and
/// no read buffer, only the entry (a 256-byte allocation). When bytes arrive the
/// park spawns a task running `serve` with them, which parks the connection
/// again if it stays open. A connection idle for `idle_timeout`, or still
/// idle at the end of a drain's grace, is closed; bytes that win the race
/// against that close are still served.
///
/// Single-threaded: the worker's own. Must outlive the tasks it spawns, and
/// be closed (close_all) while the scheduler still exists.
class IdlePark final : private DrainListener {
 public:
  using Serve = std::function<Task<void>(PlainConnection connection, ReadLease first)>;

  IdlePark(std::chrono::milliseconds idle_timeout, ConnectionTracker* tracker, Serve serve);
  IdlePark(const IdlePark&) = delete;
  IdlePark& operator=(const IdlePark&) = delete;
  ~IdlePark();

  /// Waits for the connection's next bytes. During a drain whose grace is
  /// over, closes it instead.
  void park(PlainConnection connection);
  /// Closes every parked connection now (shutdown).
  void close_all() noexcept;
  /// Connections waiting here (closing ones included).
  std::size_t size() const noexcept { return waiting_.size + closing_.size; }

 private:
  struct Entry;
  struct List {
    Entry* head = nullptr;
    Entry* tail = nullptr;
    std::size_t size = 0;
    void push_back(Entry& entry) noexcept;
    void remove(Entry& entry) noexcept;
  };

  static void on_input(IoOperation& op, void* context) noexcept;
  void on_drain(std::chrono::milliseconds idle_grace) override;
  /// Starts closing `entry`: cancels its receive; on_input finishes the job.
  void expire(Entry& entry) noexcept;
  void start_reaper();
  Task<void> close_when_idle_too_long();
  Task<void> close_after_grace(std::chrono::milliseconds grace);

  std::chrono::milliseconds idle_timeout_;
  ConnectionTracker* tracker_;
  Serve serve_;
  List waiting_;  // oldest first: deadlines fall in the same order
  List closing_;  // receives canceled, completions due
  bool reaper_running_ = false;
  bool grace_over_ = false;  // drained: no more parking
};

}  // namespace tiffany
