// CycleClock: a cheap tick counter for instrumentation (slow-task timing, the trace ring).
#pragma once

#include <chrono>
#include <cstdint>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace tiffany {

/// Reads in a few nanoseconds where clock_gettime takes twenty or more: the
/// invariant TSC on x86-64 (one rdtsc), steady_clock nanoseconds elsewhere
/// or where the TSC is not invariant. Ticks convert to time at a rate
/// measured once per process (about 2 ms, on first use). Thread-safe.
class CycleClock {
 public:
  static std::uint64_t now() noexcept {
#if defined(__x86_64__)
    if (tsc_usable()) return __rdtsc();
#endif
    return static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  }
  /// Ticks per nanosecond (1 without a usable TSC).
  static double ticks_per_ns();
  static std::chrono::nanoseconds to_duration(std::uint64_t ticks) {
    return std::chrono::nanoseconds(static_cast<std::int64_t>(static_cast<double>(ticks) / ticks_per_ns()));
  }
  static std::uint64_t to_ticks(std::chrono::nanoseconds duration) {
    return static_cast<std::uint64_t>(static_cast<double>(duration.count()) * ticks_per_ns());
  }
  /// A tick reading and the steady_clock time (nanoseconds since its epoch)
  /// read with it.
  struct Reading {
    std::uint64_t ticks;
    std::int64_t steady_ns;
  };
  /// Reads both clocks as close together as a few tries allow: a pair split
  /// by a preemption (a loaded machine, a descheduled vCPU) would date every
  /// conversion from it wrongly by that long.
  static Reading reading() noexcept;
  /// The steady_clock time (nanoseconds since its epoch) of a tick reading.
  static std::int64_t to_steady_ns(std::uint64_t ticks);
  /// The same from `at` (a reading() made after `ticks`): converting several
  /// readings from one `at` keeps their order and their spacing.
  static std::int64_t to_steady_ns(std::uint64_t ticks, const Reading& at);
  /// Whether ticks are TSC cycles (else steady_clock nanoseconds).
  static bool tsc_usable() noexcept {
    static const bool usable = invariant_tsc();  // once; safe during static initialisation too
    return usable;
  }

 private:
  static bool invariant_tsc() noexcept;
};

}  // namespace tiffany
