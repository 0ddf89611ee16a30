// Server: generations, signals (reload, log reopening, shutdown) and the graceful drain.
#include "server/server.hpp"

#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <ctime>
#include <exception>
#include <string>

#include "conf/config_error.hpp"
#include "conf/config_loader.hpp"
#include "handlers/engine/readiness.hpp"
#include "server/log/error_log.hpp"
#include "server/log_reopen.hpp"
#include "server/pid_file.hpp"
#include "server/server_signals.hpp"
#include "server/systemd_notify.hpp"
#include "server/version.hpp"

namespace tiffany {
namespace {

using Clock = std::chrono::steady_clock;

// How long an idle keep-alive connection may still deliver a request that
// was already on its way when the drain began.
constexpr std::chrono::milliseconds kIdleGrace{100};

// How long a reload waits for the old workers to stop accepting (they end
// their accept loops at their next turn).
constexpr std::chrono::milliseconds kStopAcceptingPatience{1'000};

// How long an upgrade's new process may take to serve before it is killed.
constexpr std::chrono::milliseconds kUpgradePatience{60'000};

// Settings the process took at start-up and a reload cannot change: `next`
// keeps the running values. Returns their names, joined, when some differ.
std::string keep_start_up_settings(const Config& running, Config& next) {
  std::string changed;
  const auto keep = [&](auto& value, const auto& before, const char* name) {
    if (value == before) return;
    value = before;
    changed += changed.empty() ? name : std::string(", ") + name;
  };
  keep(next.error_log.path, running.error_log.path, "$.error_log.path");
  keep(next.error_log.level, running.error_log.level, "$.error_log.level");
  keep(next.user, running.user, "$.user");
  keep(next.group, running.group, "$.group");
  keep(next.offload_threads, running.offload_threads, "$.offload_threads");
  keep(next.pid_file, running.pid_file, "$.pid_file");
  return changed;
}

// systemd's reload protocol asks for the time the reload began.
std::string reloading_state() {
  timespec now{};
  ::clock_gettime(CLOCK_MONOTONIC, &now);
  const long long usec = static_cast<long long>(now.tv_sec) * 1'000'000 + now.tv_nsec / 1'000;
  return "RELOADING=1\nMONOTONIC_USEC=" + std::to_string(usec);
}

}  // namespace

Server::Server(Config config, SocketOffers inherited)
    : current_(std::make_unique<Generation>(std::move(config), 1, inherited)) {
  for (const SocketOffer& offer : inherited) {
    if (offer.taken) continue;
    error_log().log(LogLevel::warn, "an inherited socket listening on %s matches no listener: closed",
                    offer.address.to_string().c_str());
  }
}

Server::~Server() = default;

void Server::log_listeners(const Generation& generation) const {
  const Config& config = generation.config();
  for (std::size_t i = 0; i < config.listeners.size(); ++i) {
    const ListenerConfig& listener = config.listeners[i];
    const bool http = listener.protocol == Protocol::http;
    const char* protocol = listener.tls ? (http ? "https" : "echo over TLS") : (http ? "http" : "echo");
    error_log().log(LogLevel::notice, "listener \"%s\" serving %s on %s", listener.name.c_str(), protocol,
                    generation.bound()[i].to_string().c_str());
  }
}

void Server::reload(const SystemdNotify& notify) {
  ErrorLog& log = error_log();
  notify.notify(reloading_state());
  const Config& running = current_->config();
  log.log(LogLevel::notice, "SIGHUP received: reloading %s", running.file.c_str());
  std::unique_ptr<Generation> next;
  WorkerBackend backend;
  try {
    Config config = load_config(running.file);
    const std::string fixed = keep_start_up_settings(running, config);
    if (!fixed.empty()) {
      log.log(LogLevel::warn, "reload: %s: %s changed, which takes a restart; keeping the values read at start-up",
              running.file.c_str(), fixed.c_str());
    }
    for (const std::string& warning : config.warnings) log.log(LogLevel::warn, "%s", warning.c_str());
    SocketOffers offers = current_->offer_sockets();
    next = std::make_unique<Generation>(std::move(config), current_->number() + 1, offers);
    backend = next->start();
  } catch (const ConfigError& e) {
    next.reset();
    log.log(LogLevel::error, "reload refused, serving on with the previous config: config error: %s", e.what());
    notify.notify("READY=1");
    return;
  } catch (const std::exception& e) {
    next.reset();
    log.log(LogLevel::error, "reload refused, serving on with the previous config: %s", e.what());
    notify.notify("READY=1");
    return;
  }
  // Why after the start: until the new workers accept, the old ones must.
  const auto deadline = Clock::now() + std::chrono::milliseconds(current_->config().drain_timeout_ms);
  current_->drain(kIdleGrace, Handover::next_generation);
  // Why wait: from the line below on, every new connection must reach the new configuration.
  current_->wait_until_not_accepting(kStopAcceptingPatience);
  log.log(LogLevel::notice,
          "reloaded: configuration %u serves (%zu worker%s, I/O backend %s); configuration %u drains "
          "(up to %lld ms)",
          next->number(), next->config().workers, next->config().workers == 1 ? "" : "s",
          backend.description.c_str(), current_->number(),
          static_cast<long long>(current_->config().drain_timeout_ms));
  retiring_.push_back(Retiring{std::move(current_), deadline});
  current_ = std::move(next);
  log_listeners(*current_);
  notify.notify("READY=1");
}

void Server::start_upgrade(const UpgradeContext& upgrade) {
  ErrorLog& log = error_log();
  if (upgrade_) {
    log.log(LogLevel::warn, "SIGUSR2 received: an upgrade is already under way (process %d)",
            static_cast<int>(upgrade_->pid()));
    return;
  }
  std::vector<int> sockets;
  for (const auto& worker : current_->sockets()) {
    for (const ListenSocket& socket : worker) sockets.push_back(socket.fd.get());
  }
  try {
    upgrade_ = std::make_unique<BinaryUpgrade>(upgrade.executable, upgrade.arguments, sockets, kUpgradePatience);
  } catch (const std::exception& e) {
    log.log(LogLevel::error, "SIGUSR2 received: upgrade failed, serving on: %s", e.what());
    return;
  }
  log.log(LogLevel::notice, "SIGUSR2 received: upgrade: started %s as process %d with %zu listening sockets",
          upgrade.executable.c_str(), static_cast<int>(upgrade_->pid()), sockets.size());
}

bool Server::upgrade_served() {
  std::string why;
  const BinaryUpgrade::State state = upgrade_->poll(why);
  if (state == BinaryUpgrade::State::starting) return false;
  if (state == BinaryUpgrade::State::failed) {
    error_log().log(LogLevel::error, "upgrade failed, serving on: %s", why.c_str());
    upgrade_.reset();
    return false;
  }
  error_log().log(LogLevel::notice, "upgrade: process %d serves; this one drains and exits",
                  static_cast<int>(upgrade_->pid()));
  return true;
}

void Server::reap_retiring() {
  for (auto it = retiring_.begin(); it != retiring_.end();) {
    Generation& generation = *it->generation;
    if (!generation.finished() && Clock::now() >= it->deadline) {
      error_log().log(LogLevel::warn, "configuration %u: drain timeout: closing %zu connections still open",
                      generation.number(), generation.open_connections());
      generation.stop();
      it->deadline = Clock::time_point::max();  // stopped once
    }
    if (!generation.finished()) {
      ++it;
      continue;
    }
    const unsigned number = generation.number();
    it = retiring_.erase(it);  // joins its workers, then stops its plugins
    error_log().log(LogLevel::notice, "configuration %u drained and ended", number);
  }
}

int Server::run(int signal_fd, const SystemdNotify& notify, const UpgradeContext& upgrade) {
  ErrorLog& log = error_log();
  const WorkerBackend backend = current_->start();
  const std::size_t workers = current_->config().workers;
  log.log(LogLevel::notice, "tiffany %s: %zu worker%s, I/O backend %s", kVersion, workers, workers == 1 ? "" : "s",
          backend.description.c_str());
  if (backend.fallback) {
    log.log(LogLevel::warn, "io_uring is unavailable, I/O backend %s", backend.description.c_str());
  }
  log_listeners(*current_);

  // Every listener is bound (the constructor) and every worker serves: ready.
  set_readiness(Readiness::ready);
  const bool upgrading = upgrade.predecessor != nullptr && upgrade.predecessor->upgrading();
  if (upgrading && !upgrade.predecessor->report_serving()) {
    // The old process gave up on this one (it is shutting down): take over nothing.
    log.log(LogLevel::warn, "upgrade: the process that started this one no longer waits for it; exiting");
    return 0;
  }
  const PidFile pid_file(current_->config().pid_file);
  if (upgrading) {
    // Why MAINPID, once the old process heard: under systemd this one takes over from it.
    notify.notify("MAINPID=" + std::to_string(::getpid()) + "\nREADY=1");
  } else {
    notify.notify("READY=1");
  }

  // SIGUSR1 and SIGHUP are answered whenever they come; returns true for a
  // shutdown signal (SIGINT, SIGTERM).
  bool closing = false;
  const auto shutdown_requested = [&](int signo) {
    if (signo == SIGUSR1) {
      reopen_logs(current_->config(), current_->access_log_fd());
      return false;
    }
    if (signo == SIGHUP || signo == SIGUSR2) {
      if (closing) {
        log.log(LogLevel::warn, "%s received while shutting down: ignored", signal_name(signo));
      } else if (upgrade_) {
        log.log(LogLevel::warn, "%s received while an upgrade starts process %d: ignored", signal_name(signo),
                static_cast<int>(upgrade_->pid()));
      } else if (signo == SIGHUP) {
        reload(notify);
      } else if (!retiring_.empty()) {
        log.log(LogLevel::warn, "SIGUSR2 received while configuration %u drains after a reload: try again later",
                retiring_.back().generation->number());
      } else {
        start_upgrade(upgrade);
      }
      return false;
    }
    return signo != 0;
  };
  int signal = 0;
  bool handed_over = false;  // an upgrade's new process serves
  while (!shutdown_requested(signal)) {
    signal = next_signal(signal_fd, std::chrono::milliseconds(200));
    reap_retiring();
    if (upgrade_ && upgrade_served()) {
      handed_over = true;
      break;
    }
    if (signal == 0 && current_->finished()) {
      log.log(LogLevel::crit, "every worker stopped");
      return 1;
    }
  }
  closing = true;
  if (upgrade_ && !handed_over) {
    // A successor still starting would serve on after us: stop it first.
    const pid_t successor = upgrade_->pid();
    if (upgrade_->abandon()) {
      log.log(LogLevel::warn, "upgrade abandoned for the shutdown: stopped process %d", static_cast<int>(successor));
    }
    upgrade_.reset();
  }
  if (!handed_over) {
    set_readiness(Readiness::closing);
    notify.notify("STOPPING=1");
  }
  // A second shutdown signal while closing or draining exits at once.
  const auto wait_for_second_signal = [&](std::chrono::milliseconds timeout) {
    const int again = next_signal(signal_fd, timeout);
    if (shutdown_requested(again)) {
      log.log(LogLevel::warn, "second %s: exiting now", signal_name(again));
      std::_Exit(0);
    }
  };
  const Config& config = current_->config();
  if (config.drain_delay_ms > 0 && !handed_over) {
    // Why: balancers probe `health` every few seconds; until they see the 503
    // they keep sending, and a closed listener would refuse those requests.
    log.log(LogLevel::notice,
            "%s received, serving %lld ms more with health answering 503 and Connection: close, then draining",
            signal_name(signal), static_cast<long long>(config.drain_delay_ms));
    const auto delay_end = Clock::now() + std::chrono::milliseconds(config.drain_delay_ms);
    for (auto left = delay_end - Clock::now(); left.count() > 0; left = delay_end - Clock::now()) {
      wait_for_second_signal(std::min(std::chrono::duration_cast<std::chrono::milliseconds>(left) +
                                          std::chrono::milliseconds(1),
                                      std::chrono::milliseconds(50)));
    }
  }
  const auto drain_deadline = Clock::now() + std::chrono::milliseconds(config.drain_timeout_ms);
  log.log(LogLevel::notice, "%s, draining (up to %lld ms; a second signal exits at once)",
          handed_over ? "upgraded" : (std::string(signal_name(signal)) + " received").c_str(),
          static_cast<long long>(config.drain_timeout_ms));
  // Why the retiring too: one still draining from a reload ends by the same deadline.
  for (Retiring& old : retiring_) old.deadline = std::min(old.deadline, drain_deadline);
  current_->drain(kIdleGrace, handed_over ? Handover::new_binary : Handover::none);
  for (;;) {
    reap_retiring();
    if (current_->finished() && retiring_.empty()) break;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(drain_deadline - Clock::now());
    if (left.count() <= 0) {
      log.log(LogLevel::warn, "drain timeout: closing %zu connections still open", current_->open_connections());
      current_->stop();
      for (Retiring& old : retiring_) old.generation->stop();
      break;
    }
    wait_for_second_signal(std::min(left, std::chrono::milliseconds(50)));
  }
  retiring_.clear();  // joins their workers and stops their plugins
  current_->join();
  log.log(LogLevel::notice, "stopped");
  return 0;
}

}  // namespace tiffany
