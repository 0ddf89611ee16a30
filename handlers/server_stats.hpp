// ServerStats: process-wide counters the server moves and handlers may read.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

namespace tiffany {

/// Counters shared by every worker. Relaxed atomics: each is exact on its
/// own, but a reader may see them at slightly different instants.
struct ServerStats {
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
  std::atomic<std::uint64_t> connections_open{0};
  std::atomic<std::uint64_t> connections_total{0};
  std::atomic<std::uint64_t> requests_total{0};
  std::atomic<std::uint64_t> timeouts_total{0};  // connections closed by a timeout
  std::atomic<std::uint64_t> tls_handshakes_total{0};    // completed TLS handshakes
  std::atomic<std::uint64_t> tls_handshake_failures{0};  // failed or timed out: the connection was closed
  std::atomic<std::uint64_t> tls_handshake_timeouts{0};  // the failures that ran out of time
  // Connections waiting in an IdlePark (plain, or TLS before its ClientHello
  // or between requests): no task, no buffer.
  std::atomic<std::uint64_t> connections_idle{0};
};

/// The process's counters.
ServerStats& server_stats() noexcept;

}  // namespace tiffany
