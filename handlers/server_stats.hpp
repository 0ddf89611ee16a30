// ServerStats: the server's counters, kept per thread and summed when read.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace tiffany {

/// The server's counters and gauges. /status and /metrics both render every
/// one of them (stat_descriptions() names each for both).
enum class Stat : std::uint8_t {
  connections_open,        ///< gauge: connections open now
  connections_idle,        ///< gauge: connections parked (no task, no buffer)
  connections_total,       ///< connections accepted
  connections_refused,     ///< closed at once: the client address had its limit open
  requests_total,          ///< requests parsed and passed to routing
  timeouts_header,         ///< closed: the header section took too long (408)
  timeouts_body,           ///< closed: the body took too long (408)
  timeouts_write,          ///< closed: the peer did not read the response
  timeouts_handler,        ///< answered 503: the handler took too long
  timeouts_idle,           ///< closed: idle longer than the keep-alive (or echo idle) timeout
  timeouts_handshake,      ///< closed: no TLS handshake in time (counted in the failures too)
  closed_by_drain,         ///< idle connections closed at the end of a drain's grace (not timeouts)
  bytes_received,          ///< bytes read from HTTP peers
  bytes_sent,              ///< bytes written to HTTP peers
  accept_backoffs,         ///< times accepting paused for lack of descriptors or memory
  tls_handshakes_total,    ///< completed TLS handshakes
  tls_handshake_failures,  ///< failed or timed out: the connection was closed
};
inline constexpr std::size_t kStatCount = static_cast<std::size_t>(Stat::tls_handshake_failures) + 1;

/// How /status (`key`) and /metrics (`metric`, with `labels` if any, and
/// `help`) name a stat. Stats of one metric stand together, one per label set.
struct StatDescription {
  std::string_view key;
  std::string_view metric;
  std::string_view labels;  // e.g. stage="header"; empty for none
  bool gauge;
  std::string_view help;
};
/// Every stat's description, in Stat order.
const std::array<StatDescription, kStatCount>& stat_descriptions() noexcept;

/// Request durations in Prometheus histogram buckets (seconds): the upper
/// bounds; one more bucket counts what is above them all.
inline constexpr std::array<double, 12> kDurationBounds{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005,
                                                        0.01,   0.025,   0.05,   0.1,   0.5,    1.0};

/// Adds `delta` to `stat` (a negative one to a gauge going down).
/// Why per thread: each thread writes only its own slots, so a request
/// moves no cache line another worker writes; readers sum the slots.
/// Any thread; lock-free and allocation-free after the thread's first call.
void add_stat(Stat stat, std::int64_t delta = 1) noexcept;
/// Counts one request that took `took` from its last byte to its response.
void observe_request_duration(std::chrono::nanoseconds took) noexcept;

/// Every thread's stats summed, at one moment each (not all at one moment).
struct StatTotals {
  std::array<std::int64_t, kStatCount> values{};
  std::array<std::uint64_t, kDurationBounds.size() + 1> duration_buckets{};  ///< not cumulative
  std::uint64_t duration_count = 0;
  double duration_sum_seconds = 0;
  std::int64_t operator[](Stat stat) const noexcept { return values[static_cast<std::size_t>(stat)]; }
};
StatTotals stat_totals();

/// When the process started (its static initialisation).
std::chrono::steady_clock::time_point process_started() noexcept;

}  // namespace tiffany
