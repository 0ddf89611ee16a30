// Readiness: whether this process wants new requests (starting, ready, closing), for health and keep-alive.
#pragma once

namespace tiffany {

enum class Readiness {
  starting,  ///< listeners not all up yet: `health` answers 503
  ready,     ///< serving: `health` answers 200
  closing,   ///< a shutdown began (drain delay, then drain): `health` answers 503, responses close
};

/// The process's readiness. Any thread may read it (one relaxed load per
/// request); the main thread alone sets it.
Readiness readiness() noexcept;
void set_readiness(Readiness state) noexcept;

}  // namespace tiffany
