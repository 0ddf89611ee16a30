// KeepAliveHold: a busy plain connection waits for its next request in its own task.
#pragma once

#include <chrono>
#include <coroutine>
#include <cstddef>
#include <cstdint>
#include <optional>

#include <tiffany/coro/deadline.hpp>
#include <tiffany/coro/scheduler.hpp>
#include <tiffany/reactor/io_operation.hpp>
#include <tiffany/reactor/read_lease.hpp>

#include "server/transport/connection_tracker.hpp"

namespace tiffany {

/// Parking a connection between requests (IdlePark) frees its task and its
/// frames, and costs a park, a wake-up and a new task per request: on a
/// connection that sends its next request at once (a load balancer's, a
/// benchmark's, a page's burst of assets) that is a sixth of a small
/// request's instructions. So a connection whose last input came soon after it was
/// parked is busy: once it has answered everything, its protocol waits for
/// the next bytes in the same task (ConnectionHold), for at most kWindow
/// (never past the idle timeout), and the connection parks only if none
/// came. At most `budget` connections of a listener wait so on a worker at
/// once; the rest park, as every other one does. A drain gives a waiting
/// connection its idle grace, as it does a parked one.
///
/// Single-threaded: the worker's own, like the IdlePark beside it.
class KeepAliveHold {
 public:
  /// How long a busy connection waits in its task, and the longest stay in
  /// the park that still makes the next input busy. Why 20 ms: far above a
  /// loopback or LAN round trip, well below a person's pause; a connection
  /// that goes quiet pays for one timed-out wait, then parks.
  static constexpr std::chrono::milliseconds kWindow{20};
  static constexpr std::size_t kDefaultBudget = 1024;

  /// `window` and `budget`: kWindow and kDefaultBudget but in tests.
  explicit KeepAliveHold(std::chrono::milliseconds idle_timeout, std::chrono::milliseconds window = kWindow,
                         std::size_t budget = kDefaultBudget) noexcept
      : window_(idle_timeout < window ? idle_timeout : window), budget_(budget) {}

  /// Whether input that arrived `parked_for` after its connection was parked
  /// makes it busy.
  bool busy(Scheduler::Clock::duration parked_for) const noexcept { return parked_for < window_; }
  std::chrono::milliseconds window() const noexcept { return window_; }
  /// Connections waiting in their tasks now.
  std::size_t waiting() const noexcept { return waiting_; }
  bool has_room() const noexcept { return waiting_ < budget_; }

 private:
  friend class HeldInputWait;
  std::chrono::milliseconds window_;
  std::size_t budget_;
  std::size_t waiting_ = 0;
};

/// What a wait for the next input came to.
enum class HeldInput : std::uint8_t {
  arrived,  ///< bytes are in the lease: serve them
  quiet,    ///< none within the window (or a drain's grace): the connection goes idle
  closed,   ///< the peer closed or the receive failed: the connection closes
};

class HeldInputWait;

/// One connection's use of its listener's KeepAliveHold, for the task that
/// serves it (the transport makes it, the protocol waits through it).
class ConnectionHold {
 public:
  /// `busy`: whether this connection may wait in its task at all.
  ConnectionHold(KeepAliveHold& hold, ConnectionTracker* tracker, Deadline& deadline, int socket, bool busy) noexcept
      : hold_(hold), tracker_(tracker), deadline_(deadline), socket_(socket), busy_(busy) {}
  ConnectionHold(const ConnectionHold&) = delete;
  ConnectionHold& operator=(const ConnectionHold&) = delete;

  /// Whether the protocol, with nothing owed and nothing half read, may wait
  /// for the next input now (busy, room in the budget, no drain begun).
  bool may_wait() const noexcept {
    return busy_ && hold_.has_room() && (tracker_ == nullptr || !tracker_->draining());
  }
  /// `HeldInput got = co_await hold.wait(lease);` only when may_wait(). Arms
  /// the task's deadline for the window (a protocol arms it anew for each
  /// stage that follows).
  HeldInputWait wait(ReadLease& into);

  /// After a wait came to HeldInput::quiet: since when the connection is
  /// idle (the park counts its idle timeout from then, and closes it, as
  /// drained, if a drain's grace is over).
  std::optional<Scheduler::Clock::time_point> went_quiet_at() const noexcept { return quiet_since_; }

 private:
  friend class HeldInputWait;
  KeepAliveHold& hold_;
  ConnectionTracker* tracker_;
  Deadline& deadline_;
  int socket_;
  bool busy_;
  std::optional<Scheduler::Clock::time_point> quiet_since_;
};

/// The awaitable of ConnectionHold::wait: a pooled receive that polls first
/// (the peer has yet to read our last answer), under the window. While it
/// waits the connection counts as idle, in the statistics and in a drain.
/// Why an awaitable and not a coroutine: no frame on the way to each request.
class HeldInputWait {
 public:
  HeldInputWait(ConnectionHold& hold, ReadLease& into);
  ~HeldInputWait();
  HeldInputWait(const HeldInputWait&) = delete;
  HeldInputWait& operator=(const HeldInputWait&) = delete;

  bool await_ready() const noexcept { return receive_.await_ready(); }
  void await_suspend(std::coroutine_handle<> caller) { receive_.await_suspend(caller); }
  HeldInput await_resume();

 private:
  struct Receive final : IoOperation {
    explicit Receive(int socket) noexcept
        : IoOperation(IoRequest{.kind = IoKind::recv_pooled, .poll_first = true, .fd = socket, .length = kReadBufferSize}) {}
  };

  ConnectionHold& hold_;
  ReadLease& into_;
  Scheduler::Clock::time_point since_;
  Receive receive_;
  std::optional<ConnectionTracker::Membership> membership_;
};

inline HeldInputWait ConnectionHold::wait(ReadLease& into) { return HeldInputWait(*this, into); }

}  // namespace tiffany
