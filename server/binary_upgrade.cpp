// Binary upgrade: posix_spawn handing down the listening sockets (and nothing else), a readiness pipe, and watching it.
#include "server/binary_upgrade.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <system_error>

#include "server/socket_offers.hpp"

extern char** environ;

namespace tiffany {
namespace {

[[noreturn]] void throw_errno(int error, const char* step) {
  throw std::system_error(error, std::system_category(), step);
}

// This process's environment without `names`, then `added`.
std::vector<std::string> environment_with(const std::vector<std::string>& added) {
  std::vector<std::string> result;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string_view text = *entry;
    bool replaced = false;
    for (const std::string& variable : added) {
      replaced = replaced || text.starts_with(variable.substr(0, variable.find('=') + 1));
    }
    if (!replaced) result.emplace_back(text);
  }
  result.insert(result.end(), added.begin(), added.end());
  return result;
}

std::vector<char*> pointers_to(std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  for (std::string& text : strings) pointers.push_back(text.data());
  pointers.push_back(nullptr);
  return pointers;
}

std::string describe_exit(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return std::string("was killed by ") + ::strsignal(WTERMSIG(status));
  return "ended";
}

// Where the descriptors handed to the new binary land in it, in order: after
// standard input, output and error.
constexpr int kFirstHanded = 3;

// The child's file actions: the descriptors `handed` to kFirstHanded and up,
// every other descriptor from there on closed.
// Why close the rest: whatever this process holds without close-on-exec (a
// library's socket, as c-ares's; a descriptor its own parent left it) would
// otherwise live on in every binary an upgrade starts, one upgrade after
// another. Why park them above all of them first: a handed descriptor may sit
// at the number another one moves to. dup2 to another number also clears
// close-on-exec on the copy the new binary gets.
void add_hand_down(posix_spawn_file_actions_t& actions, const std::vector<int>& handed) {
  const int parked = 1 + *std::max_element(handed.begin(), handed.end());
  const int count = static_cast<int>(handed.size());
  for (int i = 0; i < count; ++i) ::posix_spawn_file_actions_adddup2(&actions, handed[i], parked + i);
  for (int i = 0; i < count; ++i) ::posix_spawn_file_actions_adddup2(&actions, parked + i, kFirstHanded + i);
  ::posix_spawn_file_actions_addclosefrom_np(&actions, kFirstHanded + count);
}

}  // namespace

BinaryUpgrade::BinaryUpgrade(const std::string& executable, const std::vector<std::string>& arguments,
                             const std::vector<int>& sockets, std::chrono::milliseconds patience)
    : deadline_(std::chrono::steady_clock::now() + patience) {
  int ends[2];
  if (::pipe2(ends, O_CLOEXEC | O_NONBLOCK) != 0) throw_errno(errno, "pipe2");
  ready_ = UniqueFd(ends[0]);
  const UniqueFd write_end(ends[1]);
  // What the new binary inherits, in order: the sockets, then the pipe's write end.
  std::vector<int> handed = sockets;
  handed.push_back(ends[1]);
  std::string fds;
  for (std::size_t i = 0; i < sockets.size(); ++i) fds += (i == 0 ? "" : ",") + std::to_string(kFirstHanded + i);
  std::vector<std::string> environment = environment_with(
      {std::string(kInheritedSocketsVariable) + "=" + fds,
       std::string(kUpgradeReadyVariable) + "=" + std::to_string(kFirstHanded + sockets.size())});
  std::vector<std::string> argv_strings = arguments;
  std::vector<char*> argv = pointers_to(argv_strings);
  std::vector<char*> envp = pointers_to(environment);

  // Why an empty signal mask: this thread blocks the server's signals (a
  // signalfd reads them), and a child that fails before blocking them itself
  // must still die of SIGTERM.
  posix_spawnattr_t attributes;
  ::posix_spawnattr_init(&attributes);
  sigset_t none;
  sigemptyset(&none);
  ::posix_spawnattr_setsigmask(&attributes, &none);
  ::posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK);
  posix_spawn_file_actions_t actions;
  ::posix_spawn_file_actions_init(&actions);
  add_hand_down(actions, handed);
  // Why the write end is blocking in the child: its one write must not fail.
  const int flags = ::fcntl(ends[1], F_GETFL);
  ::fcntl(ends[1], F_SETFL, flags & ~O_NONBLOCK);
  const int error = ::posix_spawn(&pid_, executable.c_str(), &actions, &attributes, argv.data(), envp.data());
  ::posix_spawn_file_actions_destroy(&actions);
  ::posix_spawnattr_destroy(&attributes);
  if (error != 0) throw_errno(error, ("starting " + executable).c_str());
}

BinaryUpgrade::~BinaryUpgrade() { abandon(); }

BinaryUpgrade::State BinaryUpgrade::poll(std::string& why) {
  if (state_ != State::starting) return state_;
  if (!pipe_closed_) {
    char buffer[16];
    const ssize_t n = ::read(ready_.get(), buffer, sizeof buffer);
    if (n > 0) return state_ = State::serving;
    pipe_closed_ = n == 0;  // closed without a word: it is ending, or has
  }
  int status = 0;
  const pid_t ended = ::waitpid(pid_, &status, WNOHANG);
  if (ended == pid_ || (ended < 0 && errno == ECHILD)) {
    why = "the new process " + std::to_string(pid_) + " " + (ended == pid_ ? describe_exit(status) : "ended") +
          " before it served";
    return state_ = State::failed;
  }
  if (std::chrono::steady_clock::now() >= deadline_) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, &status, 0);
    why = "the new process " + std::to_string(pid_) + " did not serve in time and was killed";
    return state_ = State::failed;
  }
  return state_;
}

bool BinaryUpgrade::abandon() noexcept {
  if (state_ != State::starting) return false;
  state_ = State::failed;
  ready_.reset();  // Why first: the new process, if it gets that far, learns from EPIPE that it is not wanted
  ::kill(pid_, SIGTERM);
  int status = 0;
  for (int waited_ms = 0; waited_ms < 2000; waited_ms += 10) {
    if (::waitpid(pid_, &status, WNOHANG) != 0) return true;  // reaped (or not ours to reap)
    ::usleep(10'000);
  }
  ::kill(pid_, SIGKILL);
  ::waitpid(pid_, &status, 0);
  return true;
}

UpgradeReadyPipe::UpgradeReadyPipe() {
  const char* value = std::getenv(kUpgradeReadyVariable);
  if (value == nullptr) return;
  int fd = -1;
  const std::string_view text = value;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), fd);
  ::unsetenv(kUpgradeReadyVariable);
  if (error != std::errc{} || end != text.data() + text.size() || fd < 0) return;
  ::fcntl(fd, F_SETFD, FD_CLOEXEC);
  fd_ = UniqueFd(fd);
}

bool UpgradeReadyPipe::report_serving() noexcept {
  if (!fd_) return true;
  const char message[] = "serving\n";
  // EPIPE (SIGPIPE is ignored) when the old process closed its end.
  const bool heard = ::write(fd_.get(), message, sizeof message - 1) == static_cast<ssize_t>(sizeof message - 1);
  fd_.reset();
  return heard;
}

std::string executable_path() {
  static const std::string path = [] {
    char buffer[4096];
    const ssize_t n = ::readlink("/proc/self/exe", buffer, sizeof buffer - 1);
    return n > 0 ? std::string(buffer, static_cast<std::size_t>(n)) : std::string();
  }();
  return path;
}

}  // namespace tiffany
