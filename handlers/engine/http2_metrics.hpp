// Http2Metrics: one worker's HTTP/2 counters for one listener (connections, streams, resets, GOAWAYs, stalls).
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

namespace tiffany {

/// Written by the worker that owns it alone (relaxed load + store, no
/// read-modify-write); read by any thread. Metrics sums the workers' rows
/// of one listener.
struct Http2Metrics {
  explicit Http2Metrics(std::string listener_name) : listener(std::move(listener_name)) {}

  static void add(std::atomic<std::uint64_t>& counter) noexcept {
    counter.store(counter.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }

  const std::string listener;
  std::atomic<std::uint64_t> connections{0};      // connections that spoke HTTP/2
  std::atomic<std::uint64_t> streams{0};          // streams the clients opened
  std::atomic<std::uint64_t> resets_received{0};  // RST_STREAM frames from clients
  std::atomic<std::uint64_t> resets_sent{0};      // RST_STREAM frames we sent
  std::atomic<std::uint64_t> goaways_no_error{0}, goaways_calm{0}, goaways_other{0};  // GOAWAYs we sent, by code
  std::atomic<std::uint64_t> stalls{0};           // responses that waited on a shut flow-control window
};

}  // namespace tiffany
