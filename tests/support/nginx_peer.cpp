// NginxPeer: writes nginx's config, forks it with PR_SET_PDEATHSIG, waits until it accepts, stops it.
#include "support/nginx_peer.hpp"

#include <signal.h>
#include <sys/prctl.h>
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
namespace {

namespace fs = std::filesystem;

}  // namespace

NginxPeer::NginxPeer(const std::string& server_extra, const std::string& http_extra) {
  const fs::path directory = fs::temp_directory_path() / ("tiffany-nginx-" + std::to_string(::getpid()) + "-" +
                                                          std::to_string(reinterpret_cast<std::uintptr_t>(this)));
  directory_ = directory.string();
  fs::create_directories(directory / "www");
  fs::create_directories(directory / "tmp");
  {
    const LoopbackSocket probe(false);  // a free port, released for nginx
    port_ = probe.port();
  }
  const std::string& dir = directory_;
  std::ofstream(directory / "nginx.conf")
      << "error_log " << dir << "/error.log;\npid " << dir << "/nginx.pid;\nevents { worker_connections 256; }\n"
      << "http {\n  access_log off;\n  client_body_temp_path " << dir << "/tmp;\n  proxy_temp_path " << dir
      << "/tmp;\n  fastcgi_temp_path " << dir << "/tmp;\n  uwsgi_temp_path " << dir << "/tmp;\n  scgi_temp_path " << dir
      << "/tmp;\n  keepalive_requests 1000;\n"
      << http_extra << "\n  server {\n    listen 127.0.0.1:" << port_ << ";\n    root " << dir
      << "/www;\n    add_header X-Connection $connection always;\n"
      << server_extra << "\n  }\n}\n";
  std::vector<std::string> args = {
      "nginx", "-p", dir, "-c", dir + "/nginx.conf", "-g", "daemon off; master_process off;"};
  pid_ = spawn_child(args);
  for (int i = 0; i < 200 && pid_ > 0 && !accepting(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

NginxPeer::~NginxPeer() {
  stop();
  std::error_code ignored;
  fs::remove_all(directory_, ignored);
}

void NginxPeer::stop() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGTERM);  // nginx's fast shutdown: open connections are closed, not drained
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  for (;;) {
    if (::waitpid(pid_, nullptr, WNOHANG) == pid_) break;
    if (std::chrono::steady_clock::now() >= deadline) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  pid_ = -1;
}

bool NginxPeer::running() const { return pid_ > 0 && accepting(); }

std::string NginxPeer::url(const std::string& path) const { return "http://" + address() + path; }

std::string NginxPeer::address() const { return "127.0.0.1:" + std::to_string(port_); }

std::string NginxPeer::root() const { return directory_ + "/www"; }

std::string NginxPeer::log() const {
  std::ifstream in(directory_ + "/error.log");
  return std::string(std::istreambuf_iterator<char>(in), {});
}

bool NginxPeer::accepting() const {
  LoopbackSocket client(false);
  sockaddr_in target = client.address;
  target.sin_port = htons(static_cast<std::uint16_t>(port_));
  return ::connect(client.fd.get(), reinterpret_cast<sockaddr*>(&target), sizeof target) == 0;
}

}  // namespace tiffany::testing
