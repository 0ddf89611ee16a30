// CycleClock: the TSC check and the one-time rate measurement.
#include <tiffany/coro/cycle_clock.hpp>

#include <thread>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace tiffany {

bool CycleClock::invariant_tsc() noexcept {
#if defined(__x86_64__)
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(0x80000000u, &eax, &ebx, &ecx, &edx) == 0 || eax < 0x80000007u) return false;
  __get_cpuid(0x80000007u, &eax, &ebx, &ecx, &edx);
  return (edx & (1u << 8)) != 0;  // runs at a constant rate in every power state
#else
  return false;
#endif
}

namespace {

std::int64_t steady_ns() noexcept { return std::chrono::steady_clock::now().time_since_epoch().count(); }

// The rate of ticks against steady_clock.
struct Calibration {
  double ticks_per_ns;
};

Calibration measure() {
  const CycleClock::Reading start = CycleClock::reading();
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  const CycleClock::Reading end = CycleClock::reading();
  const double rate =
      static_cast<double>(end.ticks - start.ticks) / static_cast<double>(end.steady_ns - start.steady_ns);
  return Calibration{rate > 0 ? rate : 1.0};
}

const Calibration& calibration() {
  static const Calibration measured = measure();  // thread-safe, once
  return measured;
}

}  // namespace

double CycleClock::ticks_per_ns() { return tsc_usable() ? calibration().ticks_per_ns : 1.0; }

CycleClock::Reading CycleClock::reading() noexcept {
  // Why the narrowest of a few brackets: steady_clock read between two tick
  // readings that are close together was read at their midpoint, give or
  // take half their distance; a preemption between them shows as a wide
  // bracket (or a backwards one, the thread having changed cores), and one of
  // a few tries almost surely has none.
  Reading best{now(), steady_ns()};
  std::uint64_t narrowest = ~std::uint64_t{0};
  for (int i = 0; i < 4; ++i) {
    const std::uint64_t before = now();
    const std::int64_t ns = steady_ns();
    const std::uint64_t after = now();
    if (after >= before && after - before < narrowest) {
      narrowest = after - before;
      best = Reading{before + (after - before) / 2, ns};
    }
  }
  return best;
}

std::int64_t CycleClock::to_steady_ns(std::uint64_t ticks) {
  if (!tsc_usable()) return static_cast<std::int64_t>(ticks);
  return to_steady_ns(ticks, reading());
}

std::int64_t CycleClock::to_steady_ns(std::uint64_t ticks, const Reading& at) {
  if (!tsc_usable()) return static_cast<std::int64_t>(ticks);
  // Why backwards from a recent reading: the events converted are recent, so
  // the rate's small error scales their short age, not the process's uptime,
  // and a past reading never lands after the present.
  const double ago = (static_cast<double>(at.ticks) - static_cast<double>(ticks)) / ticks_per_ns();
  return at.steady_ns - static_cast<std::int64_t>(ago);
}

}  // namespace tiffany
