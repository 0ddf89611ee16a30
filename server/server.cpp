// Server: start-up checks, workers, signals and the graceful drain.
#include "server/server.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <system_error>
#include <thread>

#include "conf/config_error.hpp"
#include "handlers/internal/plugin_host.hpp"
#include "handlers/internal/readiness.hpp"
#include "server/build_protocols.hpp"
#include "server/log/error_log.hpp"
#include "server/log_reopen.hpp"
#include "server/server_signals.hpp"
#include "server/systemd_notify.hpp"
#include "server/version.hpp"

namespace tiffany {
namespace {

using Clock = std::chrono::steady_clock;

// How long an idle keep-alive connection may still deliver a request that
// was already on its way when the drain began.
constexpr std::chrono::milliseconds kIdleGrace{100};

// Opens the access log's destination; throws ConfigError naming its JSON path.
UniqueFd open_access_log(const Config& config) {
  if (config.access_log.path == "-") return UniqueFd(::dup(STDOUT_FILENO));
  UniqueFd fd(::open(config.access_log.path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644));
  if (!fd) {
    throw ConfigError(config.file, config.access_log.json_path + ".path",
                      "cannot open \"" + config.access_log.path + "\" for appending: " + std::strerror(errno));
  }
  return fd;
}

}  // namespace

Server::Server(Config config, const HandlerRegistry& registry, PluginHost* plugins)
    : config_(std::move(config)),
      registry_(registry),
      plugins_(plugins),
      workers_(config_.workers != 0 ? config_.workers : std::max(1u, std::thread::hardware_concurrency())) {
  config_.workers = workers_;
  tls_contexts_ = build_tls_contexts(config_);                // certificates and keys are read here
  peer_limits_ = build_peer_connection_limits(config_);       // per-address counts, shared by the workers
  (void)build_protocols(config_, registry_, tls_contexts_);  // every route and handler param is checked before binding
  if (config_.access_log.enabled) access_log_file_ = open_access_log(config_);
  sockets_.resize(workers_);
  for (const ListenerConfig& listener : config_.listeners) {
    ListenAddress address = listener.address;
    bool probing = !listener.share_port;
    try {
      if (probing) address = probe_unshared_address(address);  // port 0: the port the kernel chose
      probing = false;
      for (std::size_t w = 0; w < workers_; ++w) {
        sockets_[w].push_back(open_listen_socket(address));
        address.port = sockets_[w].back().bound.port;  // port 0: the others join the port the first got
      }
    } catch (const std::system_error& e) {
      std::string message =
          "listener \"" + listener.name + "\" cannot listen on " + listener.address.to_string() + ": " + e.what();
      if (probing && e.code() == std::errc::address_in_use) {
        message += " (another socket listens there; servers meant to share a port set \"share_port\": true)";
      }
      throw ConfigError(config_.file, listener.json_path + ".address", message);
    }
    bound_.push_back(address);
  }
}

int Server::run(int signal_fd, const SystemdNotify& notify) {
  ErrorLog& log = error_log();
  // Why first: the plugins stop after every worker ended (the workers below
  // are destroyed, so joined, before this guard), however run() leaves.
  struct StopPlugins {
    PluginHost* host;
    ~StopPlugins() {
      if (host != nullptr) host->stop();
    }
  } const stop_plugins{plugins_};
  if (plugins_ != nullptr) plugins_->start(workers_);
  std::vector<std::unique_ptr<Worker>> workers;
  WorkerBackend backend;
  for (std::size_t w = 0; w < workers_; ++w) {
    workers.push_back(std::make_unique<Worker>(w, config_, registry_, tls_contexts_, peer_limits_, std::move(sockets_[w]),
                                               access_log_file_ ? access_log_file_.get() : -1, plugins_));
    backend = workers.back()->start();
  }
  log.log(LogLevel::notice, "tiffany %s: %zu worker%s, I/O backend %s", kVersion, workers_, workers_ == 1 ? "" : "s",
          backend.description.c_str());
  if (backend.fallback) {
    log.log(LogLevel::warn, "io_uring is unavailable, I/O backend %s", backend.description.c_str());
  }
  for (std::size_t i = 0; i < config_.listeners.size(); ++i) {
    const ListenerConfig& listener = config_.listeners[i];
    const bool http = listener.protocol == Protocol::http;
    const char* protocol = listener.tls ? (http ? "https" : "echo over TLS") : (http ? "http" : "echo");
    log.log(LogLevel::notice, "listener \"%s\" serving %s on %s", listener.name.c_str(), protocol,
            bound_[i].to_string().c_str());
  }

  const auto all_finished = [&] {
    for (const auto& worker : workers) {
      if (!worker->finished()) return false;
    }
    return true;
  };
  // Every listener is bound (the constructor) and every worker serves: ready.
  set_readiness(Readiness::ready);
  notify.notify("READY=1");

  // SIGUSR1 and SIGHUP are answered whenever they come; returns true for a
  // shutdown signal (SIGINT, SIGTERM).
  const auto shutdown_requested = [&](int signo) {
    if (signo == SIGUSR1) {
      reopen_logs(config_, access_log_file_ ? access_log_file_.get() : -1);
      return false;
    }
    if (signo == SIGHUP) {
      log.log(LogLevel::warn,
              "SIGHUP received: reload is not supported yet; serving on with the config read at start-up "
              "(SIGUSR1 reopens the logs, SIGTERM stops)");
      return false;
    }
    return signo != 0;
  };
  int signal = 0;
  while (!shutdown_requested(signal)) {
    signal = next_signal(signal_fd, std::chrono::milliseconds(200));
    if (signal == 0 && all_finished()) {
      log.log(LogLevel::crit, "every worker stopped");
      return 1;
    }
  }
  set_readiness(Readiness::closing);
  notify.notify("STOPPING=1");
  // A second shutdown signal while closing or draining exits at once.
  const auto wait_for_second_signal = [&](std::chrono::milliseconds timeout) {
    const int again = next_signal(signal_fd, timeout);
    if (shutdown_requested(again)) {
      log.log(LogLevel::warn, "second %s: exiting now", signal_name(again));
      std::_Exit(0);
    }
  };
  if (config_.drain_delay_ms > 0) {
    // Why: balancers probe `health` every few seconds; until they see the 503
    // they keep sending, and a closed listener would refuse those requests.
    log.log(LogLevel::notice,
            "%s received, serving %lld ms more with health answering 503 and Connection: close, then draining",
            signal_name(signal), static_cast<long long>(config_.drain_delay_ms));
    const auto delay_end = Clock::now() + std::chrono::milliseconds(config_.drain_delay_ms);
    for (auto left = delay_end - Clock::now(); left.count() > 0; left = delay_end - Clock::now()) {
      wait_for_second_signal(std::min(std::chrono::duration_cast<std::chrono::milliseconds>(left) +
                                          std::chrono::milliseconds(1),
                                      std::chrono::milliseconds(50)));
    }
  }
  const auto drain_deadline = Clock::now() + std::chrono::milliseconds(config_.drain_timeout_ms);
  log.log(LogLevel::notice, "%s received, draining (up to %lld ms; a second signal exits at once)",
          signal_name(signal), static_cast<long long>(config_.drain_timeout_ms));
  for (auto& worker : workers) worker->drain(kIdleGrace);
  while (!all_finished()) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(drain_deadline - Clock::now());
    if (left.count() <= 0) {
      std::size_t open = 0;
      for (const auto& worker : workers) open += worker->open_connections();
      log.log(LogLevel::warn, "drain timeout: closing %zu connections still open", open);
      for (auto& worker : workers) worker->stop();
      break;
    }
    wait_for_second_signal(std::min(left, std::chrono::milliseconds(50)));
  }
  for (auto& worker : workers) worker->join();
  if (plugins_ != nullptr) plugins_->stop();
  log.log(LogLevel::notice, "stopped");
  return 0;
}

}  // namespace tiffany
