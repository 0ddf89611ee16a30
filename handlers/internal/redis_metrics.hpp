// RedisMetrics: one worker's counters of pub/sub's links to one Redis (connected, lost and why, refused publishes, queued bytes).
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <string>

namespace tiffany {

/// Written by the worker that owns it alone (relaxed load + store, no
/// read-modify-write); read by any thread. Metrics sums the workers' rows
/// of one Redis address (the peak: their largest).
struct RedisMetrics {
  /// Why a link was dropped: the connection closed or failed, a write
  /// passed its deadline, no answer came within it, Redis refused a
  /// command, or sent what RESP2 does not allow.
  enum class Loss : std::uint8_t { closed, write_timeout, answer_timeout, refused, protocol };
  static constexpr std::array<const char*, 5> kLossNames{"closed", "write_timeout", "answer_timeout", "refused",
                                                         "protocol"};

  explicit RedisMetrics(std::string redis_address) : redis(std::move(redis_address)) {}

  template <class T>
  static void add(std::atomic<T>& counter, T delta = 1) noexcept {
    counter.store(counter.load(std::memory_order_relaxed) + delta, std::memory_order_relaxed);
  }
  void count_loss(Loss why) noexcept { add(losses[static_cast<std::size_t>(why)], std::uint64_t{1}); }
  /// The worker's links' queued bytes changed by `delta`; the peak follows.
  void queued(std::int64_t delta) noexcept {
    add(queued_bytes, delta);
    const std::int64_t now = queued_bytes.load(std::memory_order_relaxed);
    if (now > queued_bytes_peak.load(std::memory_order_relaxed)) queued_bytes_peak.store(now, std::memory_order_relaxed);
  }

  const std::string redis;  // "host:port"
  std::atomic<std::int64_t> connected{0};  // links up now (a gauge)
  std::atomic<std::uint64_t> connects{0};  // connections made ready (AUTH and PING answered)
  std::atomic<std::uint64_t> connect_failures{0};  // tries that failed: unreachable, TLS, AUTH, no answer
  std::array<std::atomic<std::uint64_t>, kLossNames.size()> losses{};
  std::atomic<std::uint64_t> publishes_refused{0};  // Redis unreachable, or the queue full
  std::atomic<std::int64_t> queued_bytes{0};        // commands waiting to go or going (a gauge)
  std::atomic<std::int64_t> queued_bytes_peak{0};   // the most queued_bytes has been
};

}  // namespace tiffany
