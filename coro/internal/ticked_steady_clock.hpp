// ticked_steady_now: the scheduler's real clock, cheap to read.
#pragma once

#include <chrono>

namespace tiffany::detail {

/// steady_clock's time, read through the cycle counter (CycleClock): the
/// clock itself at most once a millisecond per thread, and in between the
/// last reading plus the ticks since. Never goes backwards on one thread.
/// Without an invariant counter, steady_clock::now().
std::chrono::steady_clock::time_point ticked_steady_now() noexcept;

}  // namespace tiffany::detail
