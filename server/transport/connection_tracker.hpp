// ConnectionTracker: one worker's open connections, for limits and graceful shutdown.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include <tiffany/coro/deadline.hpp>
#include <tiffany/coro/intrusive_list.hpp>
#include <tiffany/coro/promise.hpp>
#include <tiffany/coro/task.hpp>
#include <tiffany/handlers/server_stats.hpp>

#include "server/transport/listener_limits.hpp"

namespace tiffany {

/// Told when a graceful shutdown begins (the IdlePark closes its idle
/// connections after the grace; an HTTP/2 connection sends GOAWAY; a
/// WebSocket closes with 1001). on_drain must not add or remove listeners.
class DrainListener {
 public:
  virtual void on_drain(std::chrono::milliseconds idle_grace) = 0;

  /// The tracker's list of listeners runs through here (only it touches it).
  /// Why a link: every HTTP/2 connection and WebSocket is a listener, and
  /// thousands come and go; each leaves in O(1).
  ListLink<DrainListener> drain_link;

 protected:
  ~DrainListener() = default;
};

/// Knows every open connection of a worker and whether it is idle (between
/// requests). Lets the accept loop wait for a free slot at the connection
/// limit, and drains: idle connections get a short grace to deliver a
/// request already on its way, busy ones finish theirs (and say
/// "Connection: close"), and `on_drained` fires when the last one is gone.
///
/// Single-threaded: the worker's own.
class ConnectionTracker {
 public:
  /// RAII count of one open connection, taken by the accept loop the moment
  /// it accepts, so the limit holds however long a connection takes to start.
  /// Travels with the connection (task or IdlePark) until it closes.
  class Slot {
   public:
    /// Counts the connection in the worker's total and, if given, in its
    /// listener's limits (and `peer`, its client address's count, which
    /// PeerConnectionLimit::admit took).
    explicit Slot(ConnectionTracker& tracker, ListenerLimits* listener = nullptr,
                  PeerConnectionLimit::Entry* peer = nullptr) noexcept
        : tracker_(&tracker), listener_(listener), peer_(peer) {
      if (++tracker.size_ > tracker.peak_) tracker.peak_ = tracker.size_;
      if (listener_ != nullptr) listener_->add();
      add_stat(Stat::connections_open);
      add_stat(Stat::connections_total);
    }
    Slot(Slot&& other) noexcept
        : tracker_(std::exchange(other.tracker_, nullptr)),
          listener_(std::exchange(other.listener_, nullptr)),
          peer_(std::exchange(other.peer_, nullptr)),
          shared_(other.shared_) {}
    Slot& operator=(Slot&&) = delete;
    ~Slot();

    /// One more count in the same limits (the worker's, the listener's, the
    /// client address's), for a WebSocket over one of this connection's
    /// HTTP/2 streams: over HTTP/1.1 a WebSocket is its connection, counted
    /// so. Nullopt when one of them has no room. Not a connection in the
    /// server's statistics. Lives as long as the tracker and listener.
    std::optional<Slot> share() const;

   private:
    struct Shared {};
    Slot(Shared, const Slot& of) noexcept;

    ConnectionTracker* tracker_;
    ListenerLimits* listener_;
    PeerConnectionLimit::Entry* peer_;
    bool shared_ = false;  // made by share(): no connection of its own
  };

  /// RAII registration of a connection's task for draining: whether it is
  /// idle, and the deadline to shorten when it should go.
  class Membership {
   public:
    Membership(ConnectionTracker& tracker, Deadline& deadline);
    Membership(const Membership&) = delete;
    Membership& operator=(const Membership&) = delete;
    ~Membership();
    /// Marks the connection idle (waiting for a request) or busy.
    void set_idle(bool idle);

   private:
    friend class ConnectionTracker;
    /// During a drain: the idle wait ends by the drain's grace, or sooner if it was to.
    void end_within_grace();
    ConnectionTracker& tracker_;
    Deadline& deadline_;
    detail::TaskRecord* task_;
    bool idle_ = false;
    ListLink<Membership> link_;
  };

  explicit ConnectionTracker(std::size_t limit) : limit_(limit) {}

  /// Open connections (accepted and not yet closed).
  std::size_t size() const noexcept { return size_; }
  /// The most connections open at once since the last take_peak() (or start).
  std::size_t peak() const noexcept { return peak_; }
  /// Returns peak() and starts the next period at size().
  std::size_t take_peak() noexcept { return std::exchange(peak_, size_); }
  bool draining() const noexcept { return draining_; }
  /// Waits until there is room for one more connection.
  Task<void> wait_for_room();
  /// Starts a graceful shutdown; `on_drained` is called (once) when no
  /// connection is left, possibly at once.
  void drain(std::chrono::milliseconds idle_grace, std::function<void()> on_drained);
  /// `listener` hears of the drain; it must stay registered only while it
  /// lives, and be added once.
  void add_drain_listener(DrainListener& listener) noexcept { drain_listeners_.push_back(listener); }
  void remove_drain_listener(DrainListener& listener) noexcept { drain_listeners_.remove(listener); }

 private:
  void maybe_finish_drain();

  std::size_t limit_;
  std::size_t size_ = 0;
  std::size_t peak_ = 0;
  IntrusiveList<Membership, &Membership::link_> members_;
  bool draining_ = false;
  std::chrono::milliseconds idle_grace_{0};
  std::function<void()> on_drained_;
  std::vector<Promise<void>> room_;  // one per accept loop waiting for room (one per listener)
  IntrusiveList<DrainListener, &DrainListener::drain_link> drain_listeners_;
};

}  // namespace tiffany
