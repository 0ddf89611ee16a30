// spawn_child: fork, PR_SET_PDEATHSIG, redirect, exec.
#include "support/child_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

namespace tiffany::testing {
namespace {

// In the child: points `target` at `path` opened with `flags` (nothing when `path` is empty).
void redirect(const std::string& path, int flags, int target) {
  if (path.empty()) return;
  const int fd = ::open(path.c_str(), flags, 0644);
  if (fd < 0) ::_exit(127);
  ::dup2(fd, target);
  ::close(fd);
}

}  // namespace

pid_t spawn_child(const std::string& program, const std::vector<std::string>& args, const ChildStreams& streams) {
  // Why: everything is prepared before fork(); the child of a threaded
  // process may only make async-signal-safe calls (no allocation).
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(program.c_str()));
  for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(127);  // the test is already gone
  // Why before the redirections: they open files, which would take descriptor 3 if it were free.
  if (streams.fd3 == 3) {
    ::fcntl(3, F_SETFD, 0);  // keep it across exec
  } else if (streams.fd3 >= 0) {
    ::dup2(streams.fd3, 3);  // the copy does not inherit close-on-exec
  }
  redirect(streams.in, O_RDONLY, STDIN_FILENO);
  redirect(streams.out, O_WRONLY | O_CREAT | O_TRUNC, STDOUT_FILENO);
  redirect(streams.err, O_WRONLY | O_CREAT | O_TRUNC, STDERR_FILENO);
  ::execvp(argv[0], argv.data());
  ::_exit(127);
}

}  // namespace tiffany::testing
