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
  const std::uint64_t ticks0 = CycleClock::now();
  const std::int64_t ns0 = steady_ns();
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  const std::uint64_t ticks1 = CycleClock::now();
  const std::int64_t ns1 = steady_ns();
  const double rate = static_cast<double>(ticks1 - ticks0) / static_cast<double>(ns1 - ns0);
  return Calibration{rate > 0 ? rate : 1.0};
}

const Calibration& calibration() {
  static const Calibration measured = measure();  // thread-safe, once
  return measured;
}

}  // namespace

double CycleClock::ticks_per_ns() { return tsc_usable() ? calibration().ticks_per_ns : 1.0; }

std::int64_t CycleClock::to_steady_ns(std::uint64_t ticks) {
  if (!tsc_usable()) return static_cast<std::int64_t>(ticks);
  // Why from a fresh reading, backwards: the events converted are recent, so
  // the rate's small error scales their short age, not the process's uptime,
  // and a past reading never lands after the present.
  const std::uint64_t now_ticks = now();
  const std::int64_t now_ns = steady_ns();
  const double ago = (static_cast<double>(now_ticks) - static_cast<double>(ticks)) / ticks_per_ns();
  return now_ns - static_cast<std::int64_t>(ago);
}

}  // namespace tiffany
