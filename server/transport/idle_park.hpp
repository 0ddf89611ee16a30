// IdlePark: where connections wait for input, with no task and no buffer.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include <tiffany/coro/intrusive_list.hpp>
#include <tiffany/coro/scheduler.hpp>
#include <tiffany/coro/task.hpp>
#include <tiffany/reactor/io_operation.hpp>
#include <tiffany/reactor/read_lease.hpp>
#include <tiffany/reactor/unique_fd.hpp>

#include <tiffany/net/byte_stream.hpp>
#include "server/transport/connection_tracker.hpp"
#include "server/transport/proxy_info.hpp"

namespace tiffany {

/// A connection, whichever holds it: the park or the task serving it.
struct ParkedConnection {
  UniqueFd socket;
  std::string peer;
  ConnectionTracker::Slot slot;
  /// The stream whose state outlives a burst (TLS: the session, which does
  /// not own the socket); null for a plain connection, whose stream is the
  /// socket. Destroyed before the socket closes.
  std::unique_ptr<ByteStream> session;
  /// What the connection's PROXY protocol header said (null without one);
  /// then `peer` is the client it named.
  std::unique_ptr<const ProxyInfo> proxy;
  /// False until the protocol has served its first bytes.
  bool served = false;
};

/// The idle connections of one listener on one worker, all with the same
/// timeout (plain connections between requests; TLS connections before their
/// ClientHello, and between requests). An idle connection is not a task: it
/// is one small entry whose pooled receive is detached
/// (IoOperation::start_detached), so it holds no coroutine frame and no read
/// buffer, only the entry (a 256-byte allocation) and the connection's
/// session if it has one. When bytes arrive the park spawns a task running
/// `serve` with them, which parks the connection again if it stays open. A
/// connection idle for `idle_timeout`, or still idle at the end of a drain's
/// grace, is closed (`on_timeout` tells of the former); bytes that win the
/// race against that close are still served.
///
/// Single-threaded: the worker's own. Must outlive the tasks it spawns, and
/// be closed (close_all) while the scheduler still exists.
class IdlePark final : private DrainListener {
 public:
  /// Serves `first`, the bytes that arrived on `connection`, parked since
  /// `parked_since`. Why rvalue references: the connection moves once, from
  /// the park's entry into the frame of the task that serves it (a coroutine
  /// taking them by value; a lambda that is a coroutine must too).
  using Serve = std::function<Task<void>(ParkedConnection&& connection, ReadLease&& first,
                                         Scheduler::Clock::time_point parked_since)>;
  /// Counts (or logs) a connection about to close for idling too long.
  using OnTimeout = void (*)(const ParkedConnection& connection) noexcept;
  /// The default OnTimeout: counts it as an idle timeout.
  static void count_timeout(const ParkedConnection& connection) noexcept;

  /// `recv_flags`: for the parked receive; MSG_PEEK leaves the bytes in the
  /// socket (the PROXY protocol park: it takes no byte past the header).
  IdlePark(std::chrono::milliseconds idle_timeout, ConnectionTracker* tracker, Serve serve,
           OnTimeout on_timeout = &IdlePark::count_timeout, int recv_flags = 0);
  IdlePark(const IdlePark&) = delete;
  IdlePark& operator=(const IdlePark&) = delete;
  ~IdlePark();

  /// Waits for the connection's next bytes. During a drain whose grace is
  /// over, closes it instead (counted as closed by the drain).
  void park(ParkedConnection&& connection) { park(std::move(connection), Scheduler::current().now()); }
  /// The same, for a connection idle since `idle_since` (its task waited
  /// for input first: KeepAliveHold): the idle timeout counts from then.
  void park(ParkedConnection&& connection, Scheduler::Clock::time_point idle_since);
  /// Closes every parked connection now (shutdown).
  void close_all() noexcept;
  /// Connections waiting here (closing ones included).
  std::size_t size() const noexcept { return waiting_.size() + closing_.size(); }

 private:
  /// One parked connection: its detached receive and its place in a list.
  struct Entry final : IoOperation {
    Entry(IdlePark& owner, ParkedConnection&& parked, Scheduler::Clock::time_point idle_since);
    ~Entry();
    Entry(const Entry&) = delete;
    Entry& operator=(const Entry&) = delete;

    IdlePark& park;
    ParkedConnection connection;
    Scheduler::Clock::time_point since;
    ListLink<Entry> link;
    bool closing = false;    // in closing_ (its receive canceled), not waiting_
    bool timed_out = false;  // closed for idling too long (counted as a timeout)
  };
  using List = IntrusiveList<Entry, &Entry::link>;

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
  OnTimeout on_timeout_;
  int recv_flags_;
  List waiting_;  // in parking order: deadlines fall in the same order (within KeepAliveHold::kWindow)
  List closing_;  // receives canceled, completions due
  bool reaper_running_ = false;
  bool grace_over_ = false;  // drained: no more parking
};

}  // namespace tiffany
