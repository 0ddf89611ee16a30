// WebSocketMetrics: one worker's WebSocket counters for one listener (connections, open now, messages, closes).
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

namespace tiffany {

/// Written by the worker that owns it alone (relaxed load + store, no
/// read-modify-write); read by any thread. Metrics sums the workers' rows
/// of one listener.
struct WebSocketMetrics {
  explicit WebSocketMetrics(std::string listener_name) : listener(std::move(listener_name)) {}

  static void add(std::atomic<std::uint64_t>& counter, std::uint64_t delta = 1) noexcept {
    counter.store(counter.load(std::memory_order_relaxed) + delta, std::memory_order_relaxed);
  }
  /// Counts one connection's end under its close code's row.
  void count_close(std::uint16_t code) noexcept {
    add(code == 1000   ? closes_normal
        : code == 1001 ? closes_going_away
        : code == 1006 ? closes_abnormal
        : code == 1008 ? closes_policy
        : (code == 1002 || code == 1007 || code == 1009) ? closes_protocol
                                                          : closes_other);
  }

  const std::string listener;
  std::atomic<std::uint64_t> connections{0};  // upgrades accepted
  std::atomic<std::uint64_t> ended{0};        // connections over (open = connections - ended)
  std::atomic<std::uint64_t> freed{0};        // sessions destroyed (in memory = connections - freed)
  std::atomic<std::uint64_t> messages_received{0}, messages_sent{0};
  // Closes by code: 1000; 1001 (a drain); 1002, 1007, 1009 (the client broke a rule); 1008 (too slow,
  // too much queued); 1006 (no close handshake: the peer vanished or stalled); the rest.
  std::atomic<std::uint64_t> closes_normal{0}, closes_going_away{0}, closes_protocol{0}, closes_policy{0},
      closes_abnormal{0}, closes_other{0};
};

}  // namespace tiffany
