// Shutdown signals: a PYOS-style task that ReadWaits on a signalfd.
#include "server/shutdown_signals.hpp"

#include <sys/signalfd.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <system_error>

#include "coro/scheduler.hpp"
#include "reactor/readiness.hpp"

namespace tiffany {

UniqueFd block_shutdown_signals() {
  std::signal(SIGPIPE, SIG_IGN);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  if (pthread_sigmask(SIG_BLOCK, &set, nullptr) != 0) throw std::system_error(errno, std::system_category(), "sigmask");
  UniqueFd fd(signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC));
  if (!fd) throw std::system_error(errno, std::system_category(), "signalfd");
  return fd;
}

Task<void> stop_on_signal(int signal_fd) {
  for (;;) {
    const IoResult ready = co_await ReadWait{signal_fd};
    if (!ready) throw std::system_error(ready.error(), std::system_category(), "waiting for signals");
    signalfd_siginfo info{};
    if (::read(signal_fd, &info, sizeof info) != static_cast<ssize_t>(sizeof info)) continue;
    std::printf("tiffany: SIG%s received, shutting down\n", sigabbrev_np(static_cast<int>(info.ssi_signo)));
    std::fflush(stdout);
    Scheduler::current().stop();
    co_return;
  }
}

}  // namespace tiffany
