// Log reopening: open by path again, then dup3 over the descriptor the writers use.
#include "server/log_reopen.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <tiffany/reactor/unique_fd.hpp>

#include "conf/config.hpp"
#include "server/log/error_log.hpp"

namespace tiffany {

std::string reopen_onto(int fd, const std::string& path) {
  UniqueFd fresh(::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644));
  if (!fresh) return "cannot open \"" + path + "\" for appending: " + std::strerror(errno);
  // Why dup3 and not a swap of descriptors: workers hold the number, not an
  // object; dup3 replaces the file behind it atomically (O_CLOEXEC kept).
  while (::dup3(fresh.get(), fd, O_CLOEXEC) < 0) {
    if (errno != EINTR && errno != EBUSY) return "cannot reopen \"" + path + "\": " + std::strerror(errno);
  }
  return {};
}

void reopen_logs(const Config& config, int access_log_fd) {
  ErrorLog& log = error_log();
  std::string reopened;
  if (const int fd = log.file_descriptor(); fd >= 0) {
    const std::string error = reopen_onto(fd, config.error_log.path);
    if (error.empty()) {
      reopened = "the error log " + config.error_log.path;
    } else {
      log.log(LogLevel::error, "SIGUSR1: error log: %s; still writing to the old file", error.c_str());
    }
  }
  if (access_log_fd >= 0 && config.access_log.path != "-") {
    const std::string error = reopen_onto(access_log_fd, config.access_log.path);
    if (error.empty()) {
      reopened += (reopened.empty() ? "the access log " : " and the access log ") + config.access_log.path;
    } else {
      log.log(LogLevel::error, "SIGUSR1: access log: %s; still writing to the old file", error.c_str());
    }
  }
  if (!reopened.empty()) {
    log.log(LogLevel::notice, "SIGUSR1: reopened %s", reopened.c_str());
  } else if (log.file_descriptor() < 0 && (access_log_fd < 0 || config.access_log.path == "-")) {
    log.log(LogLevel::notice, "SIGUSR1: no log file to reopen (the logs go to standard error and output)");
  }
}

}  // namespace tiffany
