// Server: serves one generation of the config at a time, reloads on SIGHUP, reopens logs on SIGUSR1,
// and shuts down gracefully on SIGINT/SIGTERM.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "conf/config.hpp"
#include "server/binary_upgrade.hpp"
#include "server/generation.hpp"

namespace tiffany {

class SystemdNotify;
class UpgradeReadyPipe;

/// What a binary upgrade needs from main: how this process was started, and
/// its side of the pipe to the process it replaces, if any.
struct UpgradeContext {
  std::string executable;              // executable_path(): the file a new binary is installed as
  std::vector<std::string> arguments;  // this process's argv
  UpgradeReadyPipe* predecessor = nullptr;  // told once this process serves; may be null
};

/// Everything that can fail at start-up happens in the constructor, so a bad
/// route or a port in use is reported before anything runs.
class Server {
 public:
  /// Builds the first generation (see Generation): loads the plugins, checks
  /// every route and handler param, opens the access log and binds every
  /// listener for every worker, after checking that no other socket listens
  /// on its address unless it says share_port (may block up to 200 ms per
  /// taken address); throws ConfigError naming the JSON path of the first problem.
  /// `inherited`: the listening sockets this process was handed
  /// (take_inherited_sockets); a listener on one of their addresses takes
  /// them instead of binding, the rest are closed with a warning.
  Server(Config config, SocketOffers inherited);
  ~Server();

  /// Starts the plugins and workers, logs the I/O backend and one line per
  /// listener, marks the process ready (`health` answers 200) and sends
  /// READY=1 to `notify`, and serves until SIGINT/SIGTERM arrives on
  /// `signal_fd`. Meanwhile SIGUSR1 reopens the logs, SIGHUP reloads (see
  /// reload()) and SIGUSR2 upgrades the binary (see start_upgrade()); once
  /// an upgrade's new process serves, this one drains and returns 0, without
  /// the drain delay and with `health` still 200. Then, on SIGINT/SIGTERM: readiness closing (`health` 503, every response
  /// Connection: close) and STOPPING=1; `drain_delay_ms` of serving on; then
  /// drains every generation (listeners closed, requests in flight finished,
  /// idle connections closed) and returns 0 when drained or at the drain
  /// timeout. A second shutdown signal during the delay or the drain exits at
  /// once. Plugins start before their generation's workers and stop after
  /// them; a plugin failing to start throws std::runtime_error naming it.
  int run(int signal_fd, const SystemdNotify& notify, const UpgradeContext& upgrade);

 private:
  struct Retiring {
    std::unique_ptr<Generation> generation;
    std::chrono::steady_clock::time_point deadline;  // its drain timeout: then it is stopped
  };

  /// SIGHUP: reads the config file again and builds the next generation
  /// beside the current one, sharing the sockets of listeners whose address
  /// stays. On success new connections go to it and the current one drains
  /// (its requests in flight finish, with Connection: close); on any error
  /// the current one serves on and one line says why. RELOADING=1, then
  /// READY=1, to `notify`.
  void reload(const SystemdNotify& notify);
  /// SIGUSR2: starts the binary now at `upgrade.executable` with this
  /// process's arguments and every listening socket of the current
  /// generation; it loads the config itself. Refused (one line) while a
  /// reload drains or another upgrade runs.
  void start_upgrade(const UpgradeContext& upgrade);
  /// True once the new process serves; logs and forgets an upgrade that failed.
  bool upgrade_served();
  /// Ends the retiring generations that have drained, stops those past their deadline.
  void reap_retiring();
  void log_listeners(const Generation& generation) const;

  std::unique_ptr<Generation> current_;
  std::vector<Retiring> retiring_;
  std::unique_ptr<BinaryUpgrade> upgrade_;  // while a new binary starts
};

}  // namespace tiffany
