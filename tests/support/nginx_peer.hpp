// NginxPeer: a real nginx on 127.0.0.1 started by a test, as an upstream for the client and proxy tests.
#pragma once

#include <sys/types.h>

#include <string>

namespace tiffany::testing {

/// nginx in the foreground (`daemon off; master_process off;`, one process)
/// with a config of its own in a temporary directory: it listens on
/// 127.0.0.1:port(), serves root() (files may be written there at any time)
/// and adds `X-Connection: $connection` (nginx's connection serial number)
/// to every answer. `server_extra` goes inside its `server` block (locations),
/// `http_extra` inside `http`. A child of the test that dies with it
/// (PR_SET_PDEATHSIG), stopped and reaped on destruction or by stop().
class NginxPeer {
 public:
  explicit NginxPeer(const std::string& server_extra = "", const std::string& http_extra = "");
  NginxPeer(const NginxPeer&) = delete;
  NginxPeer& operator=(const NginxPeer&) = delete;
  ~NginxPeer();

  /// True once it accepts connections (the constructor waits up to 2 s).
  bool running() const;
  int port() const { return port_; }
  /// "http://127.0.0.1:<port><path>".
  std::string url(const std::string& path) const;
  /// "127.0.0.1:<port>", for an upstream's server list.
  std::string address() const;
  /// The document root.
  std::string root() const;
  /// Its error log, for failure messages.
  std::string log() const;
  /// Stops it (SIGTERM, SIGKILL after 5 s) and waits until it is gone.
  void stop();

 private:
  bool accepting() const;

  std::string directory_;
  int port_ = 0;
  pid_t pid_ = -1;
};

}  // namespace tiffany::testing
