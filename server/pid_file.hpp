// Pid file: the serving process's id, for `tiffany --signal` and init scripts.
#pragma once

#include <sys/types.h>

#include <string>

namespace tiffany {

/// Writes this process's id to `path` ("" does nothing) in one rename, so a
/// reader never sees it half written and an upgrade's new process replaces
/// its predecessor's; the destructor removes the file if it still names
/// this process. A failure to write is logged as an error, never thrown:
/// the server serves on without it.
class PidFile {
 public:
  explicit PidFile(std::string path);
  PidFile(const PidFile&) = delete;
  PidFile& operator=(const PidFile&) = delete;
  ~PidFile();

 private:
  std::string path_;
  bool written_ = false;
};

/// The process id in the file at `path`; throws std::runtime_error saying
/// why there is none (missing, unreadable, not a number).
pid_t read_pid_file(const std::string& path);

}  // namespace tiffany
