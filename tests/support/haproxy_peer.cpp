// HaproxyPeer: writes HAProxy's config, forks it with PR_SET_PDEATHSIG, waits until it accepts, stops it.
#include "support/haproxy_peer.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>
#include <vector>

#include "support/child_process.hpp"
#include "support/loopback_socket.hpp"

namespace tiffany::testing {

HaproxyPeer::HaproxyPeer(const std::string& backend, const std::string& mode) {
  namespace fs = std::filesystem;
  const fs::path directory = fs::temp_directory_path() / ("tiffany-haproxy-" + std::to_string(::getpid()) + "-" +
                                                          std::to_string(reinterpret_cast<std::uintptr_t>(this)));
  directory_ = directory.string();
  fs::create_directories(directory);
  {
    const LoopbackSocket probe(false);  // a free port, released for HAProxy
    port_ = probe.port();
  }
  std::ofstream(directory / "haproxy.cfg") << "global\n  maxconn 256\n"
                                           << "defaults\n  mode " << mode
                                           << "\n  timeout connect 5s\n  timeout client 30s\n  timeout server 30s\n"
                                           << "frontend front\n  bind 127.0.0.1:" << port_
                                           << "\n  default_backend tiffany\n"
                                           << "backend tiffany\n" << backend << "\n";
  pid_ = spawn_child("haproxy", {"-db", "-q", "-f", directory_ + "/haproxy.cfg"});
  for (int i = 0; i < 500 && pid_ > 0 && !accepting(); ++i) {
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

bool HaproxyPeer::running() const { return pid_ > 0 && accepting(); }

std::string HaproxyPeer::config() const {
  std::ifstream in(directory_ + "/haproxy.cfg");
  return std::string(std::istreambuf_iterator<char>(in), {});
}

bool HaproxyPeer::accepting() const {
  LoopbackSocket client(false);
  sockaddr_in target = client.address;
  target.sin_port = htons(static_cast<std::uint16_t>(port_));
  return ::connect(client.fd.get(), reinterpret_cast<sockaddr*>(&target), sizeof target) == 0;
}

}  // namespace tiffany::testing
