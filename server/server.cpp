// Server: bind, report, and run the accept loops plus the signal watcher.
#include "server/server.hpp"

#include <cstdio>
#include <system_error>

#include "conf/config_error.hpp"
#include "coro/scheduler.hpp"
#include "reactor/reactor_factory.hpp"
#include "server/accept_loop.hpp"
#include "server/shutdown_signals.hpp"
#include "server/version.hpp"

namespace tiffany {

Server::Server(Config config, const HandlerRegistry& registry)
    : config_(std::move(config)), protocols_(build_protocols(config_, registry)) {
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
  for (std::size_t i = 0; i < sockets_.size(); ++i) {
    std::printf("tiffany: listener \"%s\" serving %s on %s\n", config_.listeners[i].name.c_str(),
                protocols_[i]->name(), sockets_[i].bound.to_string().c_str());
    (void)scheduler.spawn(accept_loop(sockets_[i].fd.get(), *protocols_[i]));
  }
  std::fflush(stdout);

  (void)scheduler.spawn(stop_on_signal(signal_fd));
  scheduler.run();
  return 0;
}

}  // namespace tiffany
