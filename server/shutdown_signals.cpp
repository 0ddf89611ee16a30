// Shutdown signals: masking them and opening the signalfd the main thread polls.
#include "server/shutdown_signals.hpp"

#include <sys/signalfd.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <system_error>

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

}  // namespace tiffany
