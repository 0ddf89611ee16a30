// Readiness: one process-wide atomic, written by the main thread.
#include "handlers/engine/readiness.hpp"

#include <atomic>

namespace tiffany {
namespace {

std::atomic<Readiness> g_readiness{Readiness::starting};

}  // namespace

Readiness readiness() noexcept { return g_readiness.load(std::memory_order_relaxed); }

void set_readiness(Readiness state) noexcept { g_readiness.store(state, std::memory_order_relaxed); }

}  // namespace tiffany
