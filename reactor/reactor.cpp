// Reactor: the per-thread registration behind Reactor::current().
#include <tiffany/reactor/reactor.hpp>

#include <cstdio>
#include <cstdlib>
#include <utility>

#include <tiffany/coro/scheduler.hpp>

namespace tiffany {
namespace {
thread_local Reactor* t_current_reactor = nullptr;
}

Reactor::Reactor() {
  if (Scheduler::SharedThread::active()) return;  // the driver makes it current in turn (CurrentScope)
  if (t_current_reactor != nullptr) {
    std::fputs("tiffany: a second Reactor on one thread\n", stderr);
    std::abort();
  }
  t_current_reactor = this;
}

Reactor::~Reactor() {
  if (t_current_reactor == this) t_current_reactor = nullptr;
}

Reactor::CurrentScope::CurrentScope(Reactor& reactor) noexcept
    : previous_(std::exchange(t_current_reactor, &reactor)) {}

Reactor::CurrentScope::~CurrentScope() { t_current_reactor = previous_; }

Reactor& Reactor::current() noexcept {
  if (t_current_reactor == nullptr) {
    std::fputs("tiffany: no Reactor on this thread\n", stderr);
    std::abort();
  }
  return *t_current_reactor;
}

}  // namespace tiffany
