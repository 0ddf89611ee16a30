// ticked_steady_now: steady_clock time read through the cycle counter.
#include "coro/internal/ticked_steady_clock.hpp"

#include <algorithm>
#include <cstdint>

#include <tiffany/coro/cycle_clock.hpp>

namespace tiffany::detail {
namespace {

// The real clock for a worker's timers, read through the cycle counter: a
// clock_gettime costs tens of nanoseconds (more under a hypervisor's clock)
// and a request asks for the time several times (its deadlines, the idle
// park, its duration, the loop's timers). steady_clock is read at most once
// a millisecond; in between, its time is the last reading plus the ticks
// since, which the rate's small error (see CycleClock) puts off by
// nanoseconds, never backwards. One per thread, like the scheduler.
struct SteadyFromTicks {
  std::uint64_t anchor_ticks;  // the counter when steady_clock was last read
  std::int64_t anchor_ns;      // what it read
  std::int64_t last_ns;        // the latest time returned
  std::uint64_t refresh_ticks;  // 0: read steady_clock every time (before set-up, or no usable counter)
  double ns_per_tick;
  bool set_up;
};
constinit thread_local SteadyFromTicks steady_from_ticks{};

// Why CycleClock::reading: a counter and a clock read apart by a preemption
// would put every extrapolated time off by that long until the next read.
[[gnu::noinline]] std::int64_t read_steady_clock(SteadyFromTicks& clock) noexcept {
  if (!clock.set_up) {
    clock.set_up = true;
    if (CycleClock::tsc_usable()) {
      clock.ns_per_tick = 1.0 / CycleClock::ticks_per_ns();
      clock.refresh_ticks = CycleClock::to_ticks(std::chrono::milliseconds(1));
    }
  }
  if (clock.refresh_ticks == 0) return std::chrono::steady_clock::now().time_since_epoch().count();
  const CycleClock::Reading reading = CycleClock::reading();
  clock.anchor_ticks = reading.ticks;
  clock.anchor_ns = reading.steady_ns;
  return reading.steady_ns;
}

}  // namespace

std::chrono::steady_clock::time_point ticked_steady_now() noexcept {
  using Clock = std::chrono::steady_clock;
  SteadyFromTicks& clock = steady_from_ticks;
#if defined(__x86_64__)
  const std::uint64_t ticks = __rdtsc();
#else
  const std::uint64_t ticks = 0;
#endif
  const std::uint64_t since = ticks - clock.anchor_ticks;  // huge if another core's counter ran behind
  std::int64_t ns = since < clock.refresh_ticks
                        ? clock.anchor_ns + static_cast<std::int64_t>(static_cast<double>(since) * clock.ns_per_tick)
                        : read_steady_clock(clock);
  ns = std::max(ns, clock.last_ns);
  clock.last_ns = ns;
  return Clock::time_point(Clock::duration(ns));
}

}  // namespace tiffany::detail
