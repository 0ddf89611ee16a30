// trim_memory_after_bursts: watch the open connections, malloc_trim after a large drop.
#include "server/memory_trim.hpp"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "coro/sleep.hpp"
#include "server/connection_tracker.hpp"

namespace tiffany {

Task<void> trim_memory_after_bursts(ConnectionTracker& tracker, TrimPolicy policy) {
  for (;;) {
    co_await Sleep{policy.period};
    const std::size_t open = tracker.size();
    const std::size_t closed = tracker.peak() - open;
    if (closed < policy.min_closed || closed < tracker.peak() / 2) continue;
    (void)tracker.take_peak();
#if defined(__GLIBC__)
    ::malloc_trim(0);
#endif
  }
}

}  // namespace tiffany
