// ServerProcess: runs the real tiffany binary on a temporary config for tests.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

#include "integration/build_under_test.hpp"

namespace tiffany::testing {

/// What a finished run of the binary left behind.
struct RunResult {
  int exit_code = -1;  // -1: killed after the timeout
  std::string out;
  std::string err;
};

/// A temporary directory removed (with its files) on destruction.
class TempDir {
 public:
  TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir();
  const std::string& path() const { return path_; }
  /// Writes `content` to `name` inside the directory; returns the full path.
  std::string write(const std::string& name, const std::string& content) const;

 private:
  std::string path_;
};

/// One running tiffany process, its stdout and stderr captured to files.
/// Killed (SIGKILL) on destruction if still running.
class ServerProcess {
 public:
  /// Starts `tiffany --config <temp file holding config_json> extra_args...`;
  /// `binary` defaults to the build under test's (build_under_test.hpp).
  explicit ServerProcess(const std::string& config_json, const std::vector<std::string>& extra_args = {},
                         const std::string& binary = tiffany_binary());
  /// Same, started through a wrapper command, e.g. {"prlimit", "--nofile=64:64"}.
  ServerProcess(const std::vector<std::string>& wrapper, const std::string& config_json);
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;
  ~ServerProcess();

  /// Waits for the start-up line of `listener` in the error log (standard
  /// error, or `error_log_file` when the config sends it there) and returns
  /// its bound port. Fails the test (returns 0) if it does not appear within 10 s.
  int port_of(const std::string& listener, const std::string& error_log_file = "");
  void send_signal(int signal) const;
  /// Waits for exit; returns the exit code, or -1 after `timeout` (then kills).
  int wait_for_exit(std::chrono::milliseconds timeout);
  bool running() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }
  /// CPU time (user + system) the process has used so far.
  std::chrono::milliseconds cpu_time() const;
  std::string out() const;
  std::string err() const;
  const std::string& config_path() const { return config_path_; }
  /// Replaces the config file (by a rename, as editors and deploy tools do)
  /// with `config_json`, for a reload.
  void rewrite_config(const std::string& config_json) const;

 private:
  TempDir dir_;
  std::string config_path_;
  pid_t pid_ = -1;
  int exit_code_ = -1;
};

/// Runs the binary with `args` to completion (or kills it after `timeout`).
RunResult run_tiffany(const std::vector<std::string>& args,
                      std::chrono::milliseconds timeout = std::chrono::seconds(10));

/// Runs any program (a path, or a name looked up in PATH) to completion.
RunResult run_program(const std::string& program, const std::vector<std::string>& args,
                      std::chrono::milliseconds timeout = std::chrono::seconds(30));

/// Like run_program, with `input` as the program's standard input.
RunResult run_program_with_input(const std::string& program, const std::vector<std::string>& args,
                                 const std::string& input,
                                 std::chrono::milliseconds timeout = std::chrono::seconds(30));

/// Reads a whole file; empty if missing.
std::string read_file(const std::string& path);

/// A "kB" field of /proc/<pid>/status such as "VmRSS" or "VmSize"; -1 if absent.
long proc_status_kib(pid_t pid, const std::string& field);

}  // namespace tiffany::testing
