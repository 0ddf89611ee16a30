// ClientPools: an HttpClient's per-origin keep-alive pools, the FIFO of requests waiting for a slot, and idle expiry.
#pragma once

#include <cstddef>
#include <list>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <tiffany/client/client_options.hpp>
#include <tiffany/coro/promise.hpp>
#include <tiffany/coro/scheduler.hpp>
#include <tiffany/coro/task.hpp>

#include "client/internal/client_connection.hpp"

namespace tiffany::detail {

/// A request holds a slot of its origin from reserve() until give_back():
/// busy slots plus idle connections never pass max_per_origin. Shared (by
/// the HttpClient, its open exchanges and the idle sweeper) so that an
/// exchange may end after its client; shut_down() closes what is idle.
class ClientPools : public std::enable_shared_from_this<ClientPools> {
 public:
  explicit ClientPools(const ClientPoolOptions& options) : options_(options) {}
  ClientPools(const ClientPools&) = delete;
  ClientPools& operator=(const ClientPools&) = delete;

  /// Takes a slot of `origin` at once when the origin has room and nobody
  /// waits; false otherwise (then reserve() waits in line).
  bool try_reserve(const std::string& origin);
  /// Takes a slot of `origin`, waiting first in line while the origin is
  /// full. A canceled wait gives up its place (or the slot it was handed).
  Task<void> reserve(const std::string& origin);
  /// With a slot: the most recently used idle connection that still looks
  /// alive, or null (open a new one). Dead ones are closed on the way.
  std::unique_ptr<ClientConnection> take_idle(const std::string& origin);
  /// Ends a slot: `connection` (if any and `reusable`) goes idle, else is
  /// closed; the slot goes to the first waiter, if any. `origin` is read
  /// first, so it may be the connection's own key.
  void give_back(const std::string& origin, std::unique_ptr<ClientConnection> connection, bool reusable) noexcept;
  /// Closes every idle connection and stops the sweeper; later give_backs close.
  void shut_down() noexcept;

  std::size_t idle_count() const noexcept;
  std::size_t busy_count() const noexcept;

 private:
  struct Waiter {
    Promise<void> promise;
    bool granted = false;
  };
  struct Origin {
    std::vector<std::unique_ptr<ClientConnection>> idle;  // oldest first
    std::size_t busy = 0;
    std::list<std::shared_ptr<Waiter>> waiters;
  };
  // Gives back the slot a waiter was handed but never used (it was canceled as it woke).
  class WaitGuard;

  /// The entry of `origin`, made on first use.
  Origin& entry(const std::string& origin);
  // The sweeper's one parameter: it keeps the pools alive, and when the
  // sweeper's frame goes (its end, its cancel, or a scheduler that ends with
  // it in it, started or not) closes the idle connections, and so their
  // watches, while the reactor still is, and forgets the sweeper.
  class SweeperFrameGuard {
   public:
    explicit SweeperFrameGuard(std::shared_ptr<ClientPools> pools) noexcept : pools_(std::move(pools)) {}
    SweeperFrameGuard(SweeperFrameGuard&& other) noexcept = default;
    SweeperFrameGuard& operator=(SweeperFrameGuard&&) = delete;
    ~SweeperFrameGuard();
    ClientPools& pools() const noexcept { return *pools_; }

   private:
    std::shared_ptr<ClientPools> pools_;  // null once moved from
  };
  static Task<void> sweep(SweeperFrameGuard guard);
  /// Closes connections idle past idle_timeout; when the next one expires (nullopt: none idle).
  std::optional<Scheduler::Clock::time_point> close_expired(Scheduler::Clock::time_point now) noexcept;
  void start_sweeper() noexcept;

  ClientPoolOptions options_;
  std::unordered_map<std::string, Origin> origins_;  // node-based: an Origin& stays valid; never erased
  // Why: most clients talk to one origin; its entry is found without hashing.
  const std::string* last_key_ = nullptr;
  Origin* last_entry_ = nullptr;
  TaskId sweeper_ = 0;
  // Why kept: a scheduler destroyed with the sweeper in it (a thread's end)
  // leaves sweeper_ set; its id means nothing to another scheduler.
  Scheduler* sweeper_scheduler_ = nullptr;
  bool closed_ = false;
  bool watch_idle_ = false;  // the sweeper's reactor is io_uring: idle connections are watched, not peeked
};

}  // namespace tiffany::detail
