// Binary upgrade (SIGUSR2): start the binary installed at our path, hand it every listening socket,
// and learn when it serves; the new process's side reports that through a pipe.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

#include <tiffany/reactor/unique_fd.hpp>

namespace tiffany {

/// Environment variable naming the pipe on which an upgrade's new process
/// says it serves.
inline constexpr const char* kUpgradeReadyVariable = "TIFFANY_UPGRADE_READY_FD";

/// The old process's side: one new process, started and watched.
/// Main thread only.
class BinaryUpgrade {
 public:
  enum class State { starting, serving, failed };

  /// Starts `executable` with `arguments` (argv[0] first) and this process's
  /// environment, handing it `sockets` (kInheritedSocketsVariable) and a pipe
  /// (kUpgradeReadyVariable). Throws std::system_error when it cannot start.
  BinaryUpgrade(const std::string& executable, const std::vector<std::string>& arguments,
                const std::vector<int>& sockets, std::chrono::milliseconds patience);
  BinaryUpgrade(const BinaryUpgrade&) = delete;
  BinaryUpgrade& operator=(const BinaryUpgrade&) = delete;
  /// A new process still starting is abandoned (see abandon()).
  ~BinaryUpgrade();

  pid_t pid() const noexcept { return pid_; }
  /// Without blocking: has the new process said it serves, or failed (ended,
  /// or silent past the patience; then it is killed)? `why` says how it failed.
  State poll(std::string& why);
  /// Stops a new process that has not said it serves (SIGTERM, SIGKILL after
  /// 2 s) and reaps it. Why: this process is shutting down, and a successor
  /// nobody waits for would go on serving. Returns whether there was one to stop.
  bool abandon() noexcept;

 private:
  pid_t pid_ = -1;
  UniqueFd ready_;  // the pipe's read end
  std::chrono::steady_clock::time_point deadline_;
  State state_ = State::starting;
  bool pipe_closed_ = false;  // the new process closed the pipe unsaid: it is ending
};

/// The new process's side: takes kUpgradeReadyVariable from the environment
/// (call early in main, before threads start).
class UpgradeReadyPipe {
 public:
  UpgradeReadyPipe();
  /// Whether this process was started by an upgrade.
  bool upgrading() const noexcept { return static_cast<bool>(fd_); }
  /// Tells the old process this one serves (once). Returns false when the
  /// old process no longer listens (it gave up on this one: shutting down),
  /// true otherwise, and when not upgrading.
  bool report_serving() noexcept;

 private:
  UniqueFd fd_;
};

/// The path of this process's binary as it was at start-up (read then:
/// once a package replaces the file, /proc/self/exe names the deleted one).
std::string executable_path();

}  // namespace tiffany
