// worker_local<T>(): one T per worker (its scheduler), where a thread_local would be one per thread.
#pragma once

#include <tiffany/coro/scheduler.hpp>

namespace tiffany {

namespace detail {
/// The value under `key` for the current scheduler (or, outside any, for
/// this thread), made by `make` on first use and destroyed by `destroy`.
void* worker_local_slot(const void* key, void* (*make)(), void (*destroy)(void*));
/// Destroys `scheduler`'s values, last made first (Scheduler's destructor,
/// once its tasks are gone: as a thread's locals go after its worker).
void end_worker_locals(const Scheduler* scheduler) noexcept;
}  // namespace detail

/// What a worker keeps for its own tasks and no other worker's: its client
/// pools, its resolver, its pub/sub hubs, its splice pipes. A thread_local
/// would do while each worker has a thread; the simulation steps several
/// workers' schedulers on one thread (Scheduler::SharedThread), so such
/// state is kept by scheduler instead, and each simulated worker has its own
/// as each real one does. Made (default-constructed) on first use; lives
/// until its scheduler is destroyed. Called outside any scheduler, it is the
/// thread's own, destroyed at the thread's exit.
template <class T>
T& worker_local() {
  static const char key = 0;  // one address per T
  return *static_cast<T*>(detail::worker_local_slot(
      &key, []() -> void* { return new T(); }, [](void* value) { delete static_cast<T*>(value); }));
}

}  // namespace tiffany
