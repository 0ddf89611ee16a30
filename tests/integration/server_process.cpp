// ServerProcess: fork/exec of the real binary with captured output.
#include "server_process.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "support/child_process.hpp"

namespace tiffany::testing {
namespace {

// Waits for `pid` up to `timeout`; returns its exit code, or -1 after killing it.
int reap(pid_t pid, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    int status = 0;
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (std::chrono::steady_clock::now() >= deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

long proc_status_kib(pid_t pid, const std::string& field) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  const std::string prefix = field + ":";
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind(prefix, 0) == 0) return std::strtol(line.c_str() + prefix.size(), nullptr, 10);
  }
  return -1;
}

TempDir::TempDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "tiffany-test-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

std::string TempDir::write(const std::string& name, const std::string& content) const {
  const std::string file = path_ + "/" + name;
  std::ofstream(file, std::ios::binary) << content;
  return file;
}

// Puts `"backend": $TIFFANY_TEST_BACKEND` into a config, so CTest can run the
// whole integration suite once per I/O backend.
std::string with_test_backend(const std::string& config_json) {
  const char* backend = std::getenv("TIFFANY_TEST_BACKEND");
  const auto brace = config_json.find('{');
  if (backend == nullptr || brace == std::string::npos) return config_json;
  return config_json.substr(0, brace + 1) + "\"backend\": \"" + backend + "\", " + config_json.substr(brace + 1);
}

ServerProcess::ServerProcess(const std::string& config_json, const std::vector<std::string>& extra_args,
                             const std::string& binary)
    : config_path_(dir_.write("tiffany.json", with_test_backend(config_json))) {
  std::vector<std::string> args{"--config", config_path_};
  args.insert(args.end(), extra_args.begin(), extra_args.end());
  pid_ = spawn_child(binary, args, {"", dir_.path() + "/stdout", dir_.path() + "/stderr"});
}

ServerProcess::ServerProcess(const std::vector<std::string>& wrapper, const std::string& config_json)
    : config_path_(dir_.write("tiffany.json", with_test_backend(config_json))) {
  std::vector<std::string> args(wrapper.begin() + 1, wrapper.end());
  args.insert(args.end(), {tiffany_binary(), "--config", config_path_});
  pid_ = spawn_child(wrapper.front(), args, {"", dir_.path() + "/stdout", dir_.path() + "/stderr"});
}

void ServerProcess::rewrite_config(const std::string& config_json) const {
  const std::string next = dir_.write("tiffany.json.next", with_test_backend(config_json));
  std::filesystem::rename(next, config_path_);
}

std::chrono::milliseconds ServerProcess::cpu_time() const {
  // Fields 14 and 15 of /proc/PID/stat: utime and stime in clock ticks.
  std::istringstream stat(read_file("/proc/" + std::to_string(pid_) + "/stat"));
  std::string field;
  long long ticks = 0;
  for (int i = 1; i <= 15 && stat >> field; ++i) {
    if (i >= 14) ticks += std::stoll(field);
  }
  return std::chrono::milliseconds(ticks * 1000 / ::sysconf(_SC_CLK_TCK));
}

ServerProcess::~ServerProcess() {
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
  }
}

int ServerProcess::port_of(const std::string& listener, const std::string& error_log_file) {
  const std::string marker = "listener \"" + listener + "\" serving ";
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < deadline) {
    const std::string text = error_log_file.empty() ? err() : read_file(error_log_file);
    const auto at = text.find(marker);
    const auto end_of_line = text.find('\n', at);
    if (at != std::string::npos && end_of_line != std::string::npos) {
      const auto colon = text.rfind(':', end_of_line);  // "... on 127.0.0.1:PORT"
      return std::stoi(text.substr(colon + 1, end_of_line - colon - 1));
    }
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      ADD_FAILURE() << "tiffany exited before listening; stderr: " << err();
      return 0;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ADD_FAILURE() << "no start-up line for listener " << listener << "; stderr: " << err()
                << (error_log_file.empty() ? "" : " error log: " + read_file(error_log_file));
  return 0;
}

void ServerProcess::send_signal(int signal) const {
  if (pid_ > 0) ::kill(pid_, signal);
}

int ServerProcess::wait_for_exit(std::chrono::milliseconds timeout) {
  if (pid_ > 0) {
    exit_code_ = reap(pid_, timeout);
    pid_ = -1;
  }
  return exit_code_;
}

std::string ServerProcess::out() const { return read_file(dir_.path() + "/stdout"); }
std::string ServerProcess::err() const { return read_file(dir_.path() + "/stderr"); }

RunResult run_tiffany(const std::vector<std::string>& args, std::chrono::milliseconds timeout) {
  return run_program(tiffany_binary(), args, timeout);
}

RunResult run_program(const std::string& program, const std::vector<std::string>& args,
                      std::chrono::milliseconds timeout) {
  return run_program_with_input(program, args, std::string(), timeout);
}

RunResult run_program_with_input(const std::string& program, const std::vector<std::string>& args,
                                 const std::string& input, std::chrono::milliseconds timeout) {
  TempDir dir;
  const std::string in_path = input.empty() ? std::string() : dir.write("stdin", input);
  const pid_t pid = spawn_child(program, args, {in_path, dir.path() + "/stdout", dir.path() + "/stderr"});
  RunResult result;
  result.exit_code = reap(pid, timeout);
  result.out = read_file(dir.path() + "/stdout");
  result.err = read_file(dir.path() + "/stderr");
  return result;
}

}  // namespace tiffany::testing
