// trim_memory_after_bursts: watch the open connections, malloc_trim after a large drop.
#include "server/memory_trim.hpp"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <optional>

#include <tiffany/coro/sleep.hpp>

#include "net/engine/tls/spare_output_buffers.hpp"
#include "reactor/engine/spare_read_buffers.hpp"
#include "server/transport/connection_tracker.hpp"

namespace tiffany {

namespace {

void trim(const TrimPolicy& policy) {
  // The spare buffers the burst left behind go first: kept for reuse,
  // they would stay resident however much else is given back.
  SpareReadBuffers::for_this_thread().shrink_to(policy.spares_kept);
  tls::SpareOutputBuffers::for_this_thread().shrink_to(policy.spares_kept);
#if defined(__GLIBC__)
  ::malloc_trim(0);
#endif
}

}  // namespace

Task<void> trim_memory_after_bursts(ConnectionTracker& tracker, TrimPolicy policy) {
  // Why a second trim: a burst whose connections are still closing when a
  // check comes (a busy worker closes thousands over more than a period) is
  // trimmed half-way, and the rest of it may be fewer than `min_closed`;
  // once the count has stopped falling, what they freed goes back too.
  std::optional<std::size_t> open_at_trim;  // while the trimmed burst may still be closing
  std::size_t open_before = tracker.size();
  for (;;) {
    co_await Sleep{policy.period};
    const std::size_t open = tracker.size();
    const std::size_t closed = tracker.peak() - open;
    if (closed >= policy.min_closed && closed >= tracker.peak() / 2) {
      (void)tracker.take_peak();
      trim(policy);
      open_at_trim = open;
    } else if (open_at_trim && open < *open_at_trim && open == open_before) {
      (void)tracker.take_peak();
      trim(policy);
      open_at_trim.reset();
    } else if (open_at_trim && open >= *open_at_trim) {
      open_at_trim.reset();  // the count rose again: a new burst, judged on its own
    }
    open_before = open;
  }
}

}  // namespace tiffany
