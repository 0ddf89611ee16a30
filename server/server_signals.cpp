// Server signals: masking them, opening the signalfd the main thread polls, and reading it.
#include "server/server_signals.hpp"

#include <poll.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <system_error>

namespace tiffany {

UniqueFd block_server_signals() {
  std::signal(SIGPIPE, SIG_IGN);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  // Why SIGHUP too: its default action kills, and logrotate set-ups and
  // terminals send it; until reload exists it is logged and ignored.
  sigaddset(&set, SIGHUP);
  sigaddset(&set, SIGUSR1);
  sigaddset(&set, SIGUSR2);
  if (pthread_sigmask(SIG_BLOCK, &set, nullptr) != 0) throw std::system_error(errno, std::system_category(), "sigmask");
  UniqueFd fd(signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC));
  if (!fd) throw std::system_error(errno, std::system_category(), "signalfd");
  return fd;
}

int next_signal(int signal_fd, std::chrono::milliseconds timeout) {
  pollfd ready{signal_fd, POLLIN, 0};
  if (::poll(&ready, 1, static_cast<int>(timeout.count())) <= 0) return 0;
  signalfd_siginfo info{};
  if (::read(signal_fd, &info, sizeof info) != static_cast<ssize_t>(sizeof info)) return 0;
  return static_cast<int>(info.ssi_signo);
}

const char* signal_name(int signal) noexcept {
  switch (signal) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    case SIGUSR1: return "SIGUSR1";
    case SIGUSR2: return "SIGUSR2";
    default: return "signal";
  }
}

}  // namespace tiffany
