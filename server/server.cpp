// Server: bind, report, and run the accept loops plus the signal watcher.
#include "server/server.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <system_error>

#include "conf/config_error.hpp"
#include "coro/scheduler.hpp"
#include "handlers/metrics.hpp"
#include "reactor/reactor_factory.hpp"
#include "server/accept_loop.hpp"
#include "server/shutdown_signals.hpp"
#include "server/version.hpp"

namespace tiffany {

namespace {

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

Server::Server(Config config, const HandlerRegistry& registry) : config_(std::move(config)) {
  if (config_.access_log.enabled) {
    access_log_file_ = open_access_log(config_);
    access_log_ = std::make_unique<AccessLog>(access_log_file_.get(), config_.access_log.json ? AccessLogFormat::json
                                                                                              : AccessLogFormat::common);
  }
  protocols_ = build_protocols(config_, registry, access_log_.get());
  for (const ListenerConfig& listener : config_.listeners) {
    try {
      sockets_.push_back(open_listen_socket(listener.address));
    } catch (const std::system_error& e) {
      throw ConfigError(config_.file, listener.json_path + ".address",
                        "cannot listen on " + listener.address.to_string() + ": " + e.what());
    }
  }
}

int Server::run(int signal_fd) {
  // Declared before the scheduler: the reactor must outlive the tasks.
  const ChosenReactor chosen = make_reactor(config_.backend == IoBackend::epoll      ? BackendChoice::epoll
                                            : config_.backend == IoBackend::io_uring ? BackendChoice::io_uring
                                                                                     : BackendChoice::automatic);
  Reactor& reactor = *chosen.reactor;
  const SchedulerConfig& tuning = config_.scheduler;
  Scheduler scheduler(SchedulerOptions{
      .poller = &reactor,
      .policy = tuning.priority_policy ? SchedulingPolicy::priority : SchedulingPolicy::fifo,
      .max_resumes_between_polls = tuning.max_resumes_between_polls,
      .slow_task_threshold = std::chrono::milliseconds(tuning.slow_task_warning_ms),
      .trace_capacity = tuning.trace_events});

  std::printf("tiffany %s: I/O backend %s (%s)\n", kVersion, reactor.describe().c_str(), chosen.reason.c_str());
  const std::string backend = reactor.describe();
  Metrics::instance().set_backend(backend.substr(0, backend.find(' ')));  // "io_uring" or "epoll"
  for (std::size_t i = 0; i < sockets_.size(); ++i) {
    std::printf("tiffany: listener \"%s\" serving %s on %s\n", config_.listeners[i].name.c_str(),
                protocols_[i]->name(), sockets_[i].bound.to_string().c_str());
    (void)scheduler.spawn(accept_loop(sockets_[i].fd.get(), *protocols_[i]));
  }
  std::fflush(stdout);

  (void)scheduler.spawn(stop_on_signal(signal_fd));
  if (access_log_) (void)scheduler.spawn(access_log_->flush_every(std::chrono::seconds(1)));
  scheduler.run();
  if (access_log_) access_log_->flush();
  return 0;
}

}  // namespace tiffany
