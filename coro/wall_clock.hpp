// wall_now: the time of day the server writes (Date headers), from the system or from a driver.
#pragma once

#include <ctime>

namespace tiffany {

/// The UTC time of day, coarse (CLOCK_REALTIME_COARSE: a tick's precision,
/// which is what Date headers need), unless a WallClockSource on the calling
/// thread supplies it.
std::timespec wall_now() noexcept;

/// While it lives, wall_now() on this thread reads `read(context)` instead of
/// the system: how a driver of virtual time (the simulation) makes what the
/// server writes follow its clock. Scopes nest; the previous source comes back.
class WallClockSource {
 public:
  using Read = std::timespec (*)(const void* context) noexcept;
  WallClockSource(Read read, const void* context) noexcept;
  ~WallClockSource();
  WallClockSource(const WallClockSource&) = delete;
  WallClockSource& operator=(const WallClockSource&) = delete;

 private:
  Read previous_read_;
  const void* previous_context_;
};

}  // namespace tiffany
