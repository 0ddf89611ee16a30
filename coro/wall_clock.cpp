// wall_now: the system's coarse real-time clock, or the thread's installed source.
#include <tiffany/coro/wall_clock.hpp>

#include <time.h>

namespace tiffany {
namespace {
thread_local WallClockSource::Read t_read = nullptr;
thread_local const void* t_context = nullptr;
}  // namespace

std::timespec wall_now() noexcept {
  if (t_read != nullptr) return t_read(t_context);
  std::timespec now{};
  clock_gettime(CLOCK_REALTIME_COARSE, &now);
  return now;
}

WallClockSource::WallClockSource(Read read, const void* context) noexcept
    : previous_read_(t_read), previous_context_(t_context) {
  t_read = read;
  t_context = context;
}

WallClockSource::~WallClockSource() {
  t_read = previous_read_;
  t_context = previous_context_;
}

}  // namespace tiffany
