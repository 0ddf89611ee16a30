// trim_memory_after_bursts: give the heap a burst of connections freed back to the system.
#pragma once

#include <chrono>
#include <cstddef>

#include <tiffany/coro/task.hpp>

namespace tiffany {

class ConnectionTracker;

/// When to trim: once the worker's open connections are at least
/// `min_closed` (and half) below their peak since the last trim; checked
/// every `period`. And once more when the count, still falling after a
/// trim, has stopped (the rest of a burst that closed over several checks).
struct TrimPolicy {
  std::size_t min_closed = 512;
  std::chrono::milliseconds period{1000};
  std::size_t spares_kept = 8;  // spare read and TLS output buffers kept for reuse after a trim
};

/// Runs for the worker's life. Why: glibc gives memory back to the system
/// by itself only from the top of each arena, so what thousands of closed
/// connections freed (sessions, frames, buffers, interleaved with what
/// lives on) stays resident until reused, and so do the spare buffers the
/// worker keeps (all but a few are freed first). malloc_trim(0) releases the free
/// pages inside every arena. It stalls this worker while it runs (about
/// 45 ms to release 300 MB freed in 15 KiB pieces), so it is called only
/// after a large drop in open connections and costs nothing in a steady
/// state. Elsewhere than glibc it only waits.
Task<void> trim_memory_after_bursts(ConnectionTracker& tracker, TrimPolicy policy = {});

}  // namespace tiffany
