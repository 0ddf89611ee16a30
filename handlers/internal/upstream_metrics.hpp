// UpstreamServerMetrics: one worker's counters for one upstream server (requests, errors, latency, pool, health and its changes, hedges).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <string>

namespace tiffany {

/// Written by the worker that owns it alone (relaxed load + store, no
/// read-modify-write); read by any thread. Metrics sums the workers' rows
/// that share (upstream, server).
struct UpstreamServerMetrics {
  /// The latency histogram's upper bounds, in seconds (a last +Inf bucket follows).
  static constexpr std::array<double, 12> kBuckets{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
                                                   0.1,   0.25,   0.5,   1,    2.5,   10};
  /// Error kinds counted apart: kErrorKinds[i] names errors[i].
  static constexpr std::array<const char*, 6> kErrorKinds{"connect", "timeout", "protocol", "truncated", "5xx", "other"};
  enum Error : std::size_t { connect, timeout, protocol, truncated, status_5xx, other };

  UpstreamServerMetrics(std::string upstream_name, std::string server_name)
      : upstream(std::move(upstream_name)), server(std::move(server_name)) {}

  static void add(std::atomic<std::uint64_t>& counter, std::uint64_t n = 1) noexcept {
    counter.store(counter.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  }
  void count_error(Error kind) noexcept { add(errors[kind]); }
  void observe_seconds(double seconds) noexcept {
    std::size_t i = 0;
    while (i < kBuckets.size() && seconds > kBuckets[i]) ++i;
    add(latency_buckets[i]);
    add(latency_micros_sum, static_cast<std::uint64_t>(seconds * 1e6));
  }

  const std::string upstream;
  const std::string server;
  std::atomic<std::uint64_t> requests{0};  // attempts sent to this server (retries and hedges included)
  std::array<std::atomic<std::uint64_t>, kErrorKinds.size()> errors{};
  std::array<std::atomic<std::uint64_t>, kBuckets.size() + 1> latency_buckets{};  // not cumulative; +Inf last
  std::atomic<std::uint64_t> latency_micros_sum{0};
  std::atomic<std::uint64_t> hedges_sent{0}, hedges_won{0}, retries{0}, budget_refusals{0};
  std::atomic<std::uint64_t> probes{0}, probe_failures{0};
  std::atomic<std::uint64_t> marked_down{0}, came_back{0};  // health's changes: taken out, back in
  std::atomic<std::uint64_t> pool_active{0}, pool_idle{0};  // gauges: this worker's pooled connections to the server
  std::atomic<std::uint64_t> up{1};                          // gauge: 1 takes requests, 0 down
  std::atomic<std::uint64_t> spliced_bytes{0};  // response body bytes moved socket to socket (splice), not copied
};

}  // namespace tiffany
