// HaproxyPeer: a real HAProxy on 127.0.0.1 started by a test, as the load balancer in front of Tiffany.
#pragma once

#include <sys/types.h>

#include <string>

namespace tiffany::testing {

/// HAProxy in the foreground (`-db`) with a config of its own in a temporary
/// directory: one frontend on 127.0.0.1:port() in `mode` ("tcp" or "http")
/// whose backend holds `backend` (its lines, e.g. "server t 127.0.0.1:8080
/// send-proxy-v2"), `defaults` lines added to its defaults section. A child
/// of the test that dies with it, stopped and reaped on destruction. Its
/// admin socket is stats_socket(), for "show stat".
class HaproxyPeer {
 public:
  HaproxyPeer(const std::string& backend, const std::string& mode = "tcp", const std::string& defaults = "");
  HaproxyPeer(const HaproxyPeer&) = delete;
  HaproxyPeer& operator=(const HaproxyPeer&) = delete;
  ~HaproxyPeer();

  /// True while it runs and answers on its admin socket (the constructor
  /// waits up to 10 s for that). Its frontend's socket listens from the start.
  bool running() const;
  int port() const { return port_; }
  /// Its config, for failure messages.
  std::string config() const;
  /// The path of its admin (stats) Unix socket.
  std::string stats_socket() const { return directory_ + "/admin.sock"; }
  /// Sends `command` ("show stat") to the admin socket; returns the answer ("" if none).
  std::string admin(const std::string& command) const;

 private:
  std::string directory_;
  int port_ = 0;
  pid_t pid_ = -1;
};

}  // namespace tiffany::testing
