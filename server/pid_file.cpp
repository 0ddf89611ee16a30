// Pid file: written beside and renamed into place; removed only by the process it names.
#include "server/pid_file.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "server/log/error_log.hpp"

namespace tiffany {

PidFile::PidFile(std::string path) : path_(std::move(path)) {
  if (path_.empty()) return;
  const std::string next = path_ + ".next";
  {
    std::ofstream out(next, std::ios::trunc);
    out << ::getpid() << '\n';
    out.close();
    if (!out) {
      error_log().log(LogLevel::error, "cannot write the pid file %s: %s", next.c_str(), std::strerror(errno));
      return;
    }
  }
  if (std::rename(next.c_str(), path_.c_str()) != 0) {
    error_log().log(LogLevel::error, "cannot write the pid file %s: %s", path_.c_str(), std::strerror(errno));
    std::remove(next.c_str());
    return;
  }
  written_ = true;
}

PidFile::~PidFile() {
  if (!written_) return;
  try {
    // Why check: after an upgrade the file names the new process.
    if (read_pid_file(path_) == ::getpid()) std::remove(path_.c_str());
  } catch (const std::runtime_error&) {
    // gone or replaced by something else: not ours to remove
  }
}

pid_t read_pid_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read the pid file " + path + ": " + std::strerror(errno));
  long pid = 0;
  if (!(in >> pid) || pid <= 0) throw std::runtime_error("the pid file " + path + " holds no process id");
  return static_cast<pid_t>(pid);
}

}  // namespace tiffany
