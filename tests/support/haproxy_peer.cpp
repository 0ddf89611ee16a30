// HaproxyPeer: writes HAProxy's config, forks it on our listening socket, waits for its admin socket, stops it.
#include "support/haproxy_peer.hpp"

#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>
#include <vector>

#include "support/child_process.hpp"
#include "support/loopback_socket.hpp"

namespace tiffany::testing {

HaproxyPeer::HaproxyPeer(const std::string& backend, const std::string& mode, const std::string& defaults) {
  namespace fs = std::filesystem;
  const fs::path directory = fs::temp_directory_path() / ("tiffany-haproxy-" + std::to_string(::getpid()) + "-" +
                                                          std::to_string(reinterpret_cast<std::uintptr_t>(this)));
  directory_ = directory.string();
  fs::create_directories(directory);
  // Why a socket of ours, listening before HAProxy starts (`bind fd@3`), not a
  // free port released for it: under load, another test's process could bind
  // the port first, or a probe bound to the same port could connect to
  // itself, and a connection made before HAProxy's bind was refused; queued
  // in this socket's backlog, it waits for HAProxy instead.
  const LoopbackSocket listener(true);
  port_ = listener.port();
  std::ofstream(directory / "haproxy.cfg") << "global\n  maxconn 256\n  stats socket " << stats_socket() << "\n"
                                           << "defaults\n  mode " << mode
                                           << "\n  timeout connect 5s\n  timeout client 30s\n  timeout server 30s\n"
                                           << defaults
                                           << "frontend front\n  bind fd@3"
                                           << "\n  default_backend tiffany\n"
                                           << "backend tiffany\n" << backend << "\n";
  if (!listener.fd) return;
  ChildStreams streams;
  streams.fd3 = listener.fd.get();
  pid_ = spawn_child("haproxy", {"-db", "-q", "-f", directory_ + "/haproxy.cfg"}, streams);
  // Ready when its admin socket answers: HAProxy enables its listeners together, once the config is loaded.
  for (int i = 0; i < 1000 && pid_ > 0 && !running(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

HaproxyPeer::~HaproxyPeer() {
  if (pid_ > 0) {
    ::kill(pid_, SIGTERM);  // HAProxy's hard stop
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (::waitpid(pid_, nullptr, WNOHANG) != pid_) {
      if (std::chrono::steady_clock::now() >= deadline) {
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, nullptr, 0);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
  std::error_code ignored;
  std::filesystem::remove_all(directory_, ignored);
}

// Why not waitpid: reaping it here would leave the destructor a pid that may be another process's by then.
bool HaproxyPeer::running() const { return pid_ > 0 && !admin("show info").empty(); }

std::string HaproxyPeer::config() const {
  std::ifstream in(directory_ + "/haproxy.cfg");
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string HaproxyPeer::admin(const std::string& command) const {
  const UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  const std::string path = stats_socket();
  if (!fd || path.size() >= sizeof address.sun_path) return "";
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) return "";
  const std::string line = command + "\n";
  if (::send(fd.get(), line.data(), line.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(line.size())) return "";
  std::string answer;  // HAProxy closes the socket after one command
  char buffer[4096];
  for (ssize_t n; (n = ::recv(fd.get(), buffer, sizeof buffer, 0)) > 0;) answer.append(buffer, static_cast<std::size_t>(n));
  return answer;
}

}  // namespace tiffany::testing
