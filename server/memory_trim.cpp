// trim_memory_after_bursts: watch the open connections, malloc_trim after a large drop.
#include "server/memory_trim.hpp"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <tiffany/coro/sleep.hpp>

#include "net/engine/tls/spare_output_buffers.hpp"
#include "reactor/engine/spare_read_buffers.hpp"
#include "server/transport/connection_tracker.hpp"

namespace tiffany {

Task<void> trim_memory_after_bursts(ConnectionTracker& tracker, TrimPolicy policy) {
  for (;;) {
    co_await Sleep{policy.period};
    const std::size_t open = tracker.size();
    const std::size_t closed = tracker.peak() - open;
    if (closed < policy.min_closed || closed < tracker.peak() / 2) continue;
    (void)tracker.take_peak();
    // The spare buffers the burst left behind go first: kept for reuse,
    // they would stay resident however much else is given back.
    SpareReadBuffers::for_this_thread().shrink_to(policy.spares_kept);
    tls::SpareOutputBuffers::for_this_thread().shrink_to(policy.spares_kept);
#if defined(__GLIBC__)
    ::malloc_trim(0);
#endif
  }
}

}  // namespace tiffany
