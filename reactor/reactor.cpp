// Reactor: the per-thread registration behind Reactor::current().
#include <tiffany/reactor/reactor.hpp>

#include <cstdio>
#include <cstdlib>

namespace tiffany {
namespace {
thread_local Reactor* t_current_reactor = nullptr;
}

Reactor::Reactor() {
  if (t_current_reactor != nullptr) {
    std::fputs("tiffany: a second Reactor on one thread\n", stderr);
    std::abort();
  }
  t_current_reactor = this;
}

Reactor::~Reactor() { t_current_reactor = nullptr; }

Reactor& Reactor::current() noexcept {
  if (t_current_reactor == nullptr) {
    std::fputs("tiffany: no Reactor on this thread\n", stderr);
    std::abort();
  }
  return *t_current_reactor;
}

}  // namespace tiffany
