// spawn_child: starts a peer program (nginx, HAProxy) as a child of the test that dies with it.
#pragma once

#include <signal.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <unistd.h>

#include <string>
#include <vector>

namespace tiffany::testing {

/// Starts `args` (args[0] looked up in PATH); returns its pid (or -1).
inline pid_t spawn_child(std::vector<std::string>& args) {
  // Why: everything is prepared before fork(); the child of a threaded
  // process may only make async-signal-safe calls (no allocation).
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  // Why: a test killed by ctest's timeout never runs its peer's destructor,
  // and a peer left behind holds its port and its files; it dies with the
  // forking thread (tests start peers on their main thread).
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(127);
  ::execvp(argv[0], argv.data());
  ::_exit(127);
}

}  // namespace tiffany::testing
