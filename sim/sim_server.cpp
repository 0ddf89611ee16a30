// SimServer: Generation's set-up from a config, then a WorkerRuntime per simulated host.
#include "sim/sim_server.hpp"

#include <algorithm>
#include <string>

#include "server/build_protocols.hpp"

namespace tiffany::sim {
namespace {
constexpr std::size_t kTraceEvents = 1 << 16;  // read after each step into the run's hash
}

SimServer::SimServer(World& world, Config config) : world_(world), config_(std::move(config)) {
  config_.workers = std::max<std::size_t>(config_.workers, 1);  // "0" (one per core) means one here
  // Why: the world hashes every worker's task events, read from the scheduler's trace.
  config_.scheduler.trace_events = std::max(config_.scheduler.trace_events, kTraceEvents);
  handlers_ = load_handlers(config_);
  tls_contexts_ = build_tls_contexts(config_);
  peer_limits_ = build_peer_connection_limits(config_);
  (void)build_protocols(config_, handlers_->registry, handlers_->builtins_checking, tls_contexts_);
  handlers_->plugins.start(config_.workers);
  try {
    start_workers();
  } catch (...) {
    stop_workers();  // each on its host, as the destructor would: it does not run for a constructor that threw
    throw;
  }
}

void SimServer::start_workers() {
  for (std::size_t w = 0; w < config_.workers; ++w) {
    auto worker = std::make_unique<SimWorker>();
    worker->host = &world_.add_bare_host("worker " + std::to_string(w));
    for (const ListenerConfig& listener : config_.listeners) {
      worker->sockets.push_back(
          ListenSocket{UniqueFd(world_.network().listen(listener.address.to_string(), 4096)), listener.address});
    }
    {
      Reactor::CurrentScope reactor(*worker->host->reactor);
      worker->runtime =
          std::make_unique<WorkerRuntime>(WorkerRuntime::Setup{.index = w,
                                                               .config = config_,
                                                               .registry = handlers_->registry,
                                                               .builtins = handlers_->builtins,
                                                               .tls_contexts = tls_contexts_,
                                                               .peer_limits = peer_limits_,
                                                               .access_log_fd = -1,
                                                               .plugins = &handlers_->plugins,
                                                               .clock = &world_.clock()},
                                          worker->sockets, *worker->host->reactor, worker->open, worker->accepting);
    }
    world_.attach(*worker->host, worker->runtime->scheduler());
    workers_.push_back(std::move(worker));
  }
}

SimServer::~SimServer() { stop_workers(); }

void SimServer::stop_workers() noexcept {
  while (!workers_.empty()) {
    SimWorker& worker = *workers_.back();
    world_.detach(*worker.host);
    Reactor::CurrentScope reactor(*worker.host->reactor);
    if (worker.runtime) {
      Scheduler::CurrentScope scheduler(worker.runtime->scheduler());
      worker.runtime.reset();
    }
    worker.sockets.clear();
    workers_.pop_back();
  }
}

void SimServer::drain(std::chrono::milliseconds grace) {
  for (const auto& worker : workers_) {
    world_.on(*worker->host, [&] { worker->runtime->drain(grace, Handover::none); });
  }
}

bool SimServer::drained() const noexcept {
  return std::all_of(workers_.begin(), workers_.end(),
                     [](const auto& worker) { return worker->runtime->scheduler().stopping(); });
}

std::size_t SimServer::open_connections() const noexcept {
  std::size_t open = 0;
  for (const auto& worker : workers_) open += worker->runtime->tracker().size();
  return open;
}

}  // namespace tiffany::sim
