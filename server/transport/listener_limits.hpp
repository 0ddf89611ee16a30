// ListenerLimits: a listener's own connection limits, in all (each worker's share) and per client address (shared).
#pragma once

#include <sys/socket.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <tiffany/coro/promise.hpp>
#include <tiffany/coro/task.hpp>

namespace tiffany {

struct Config;

/// `limits.max_connections_per_ip` of one listener: its open connections
/// counted by client address. Shared by every worker (the kernel spreads
/// one client's connections over them), so the limit is exact, not a
/// per-worker share. Thread-safe: one short lock when a connection is
/// accepted and one when it closes; nothing per request.
class PeerConnectionLimit {
 public:
  /// IPv6, or IPv4 as an IPv4-mapped IPv6 address (::ffff:a.b.c.d), so one
  /// client counts once whichever family its connections use.
  using Address = std::array<std::uint8_t, 16>;
  /// One address's count; stays put while connections from it are open.
  using Entry = std::pair<const Address, std::size_t>;

  explicit PeerConnectionLimit(std::size_t limit);
  PeerConnectionLimit(const PeerConnectionLimit&) = delete;
  PeerConnectionLimit& operator=(const PeerConnectionLimit&) = delete;

  /// Counts one more connection from `peer`'s address; nullptr, counting
  /// nothing, when that address already has `limit` open.
  Entry* admit(const sockaddr_storage& peer);
  /// Counts one more for the address of `entry` (which admit() returned and
  /// is still counted); false, counting nothing, when it has `limit` open.
  bool admit_again(Entry& entry);
  /// Uncounts a connection that admit() or admit_again() counted.
  void release(Entry& entry) noexcept;
  std::size_t limit() const noexcept { return limit_; }
  /// Addresses with connections open now.
  std::size_t addresses() const;

 private:
  // Why seeded: clients choose their addresses (a whole IPv6 prefix), so an
  // unseeded hash could be flooded with colliding keys.
  struct Hash {
    std::uint64_t seed;
    std::size_t operator()(const Address& address) const noexcept;
  };

  std::size_t limit_;
  mutable std::mutex mutex_;
  std::unordered_map<Address, std::size_t, Hash> open_;
};

/// Each listener's PeerConnectionLimit, in config order; null where the
/// listener sets no `max_connections_per_ip`. Built once per process.
using PeerConnectionLimits = std::vector<std::unique_ptr<PeerConnectionLimit>>;
PeerConnectionLimits build_peer_connection_limits(const Config& config);

/// One listener's limits on one worker: its share of `limits.max_connections`
/// (the listener's accept loop pauses there, leaving the worker's other
/// listeners their room) and the listener's PeerConnectionLimit.
/// Single-threaded: the worker's own. Must outlive the connections counted
/// (their ConnectionTracker::Slot).
class ListenerLimits {
 public:
  /// `max_connections` 0: none; `per_address` may be null (none).
  ListenerLimits(std::string listener, std::size_t max_connections, PeerConnectionLimit* per_address) noexcept
      : listener_(std::move(listener)), max_(max_connections), per_address_(per_address) {}
  ListenerLimits(const ListenerLimits&) = delete;
  ListenerLimits& operator=(const ListenerLimits&) = delete;

  const std::string& listener() const noexcept { return listener_; }
  /// Connections of this listener open on this worker.
  std::size_t size() const noexcept { return size_; }
  bool full() const noexcept { return max_ != 0 && size_ >= max_; }
  /// Waits until this listener has room for one more connection here.
  Task<void> wait_for_room();
  PeerConnectionLimit* per_address() const noexcept { return per_address_; }

 private:
  friend class ConnectionTracker;  // its Slot counts connections in and out
  void add() noexcept { ++size_; }
  void remove(PeerConnectionLimit::Entry* peer) noexcept;

  std::string listener_;
  std::size_t max_;
  PeerConnectionLimit* per_address_;
  std::size_t size_ = 0;
  std::vector<Promise<void>> room_;  // the accept loop, when it waits for room
};

}  // namespace tiffany
