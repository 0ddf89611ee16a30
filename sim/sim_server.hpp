// SimServer: the server a config describes, its workers on simulated hosts.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <memory>
#include <vector>

#include "conf/config.hpp"
#include "server/build_tls_contexts.hpp"
#include "server/listen_socket.hpp"
#include "server/load_handlers.hpp"
#include "server/transport/listener_limits.hpp"
#include "server/worker_runtime.hpp"
#include "sim/world.hpp"

namespace tiffany::sim {

/// What Generation builds from a config — the handlers and plugins, TLS
/// contexts, per-address limits — and one WorkerRuntime per worker, each
/// on a host of its own in `world`, listening on the simulated network at
/// its listeners' configured addresses (one socket per worker and listener,
/// as SO_REUSEPORT gives them). The same code as the real server's from the
/// WorkerRuntime down; what differs is the reactor beneath (SimReactor) and
/// the clock (the world's).
class SimServer {
 public:
  /// Throws ConfigError as the real server's start would.
  SimServer(World& world, Config config);
  SimServer(const SimServer&) = delete;
  SimServer& operator=(const SimServer&) = delete;
  /// Destroys the runtimes (their unfinished tasks with them), each on its host.
  ~SimServer();

  std::size_t workers() const noexcept { return workers_.size(); }
  Host& host(std::size_t worker) noexcept { return *workers_[worker]->host; }
  WorkerRuntime& runtime(std::size_t worker) noexcept { return *workers_[worker]->runtime; }
  /// What SIGTERM asks of each worker (Worker::drain, Handover::none).
  void drain(std::chrono::milliseconds grace);
  /// True once every worker's drain has finished (its scheduler asked to stop).
  bool drained() const noexcept;
  /// Connections the workers' trackers count.
  std::size_t open_connections() const noexcept;

 private:
  void start_workers();
  /// Destroys the runtimes, last first, each with its host's scheduler and reactor current.
  void stop_workers() noexcept;

  struct SimWorker {
    Host* host = nullptr;
    std::vector<ListenSocket> sockets;
    std::atomic<std::size_t> open{0};
    std::atomic<bool> accepting{true};
    std::unique_ptr<WorkerRuntime> runtime;
  };

  World& world_;
  Config config_;
  std::unique_ptr<LoadedHandlers> handlers_;
  TlsContexts tls_contexts_;
  PeerConnectionLimits peer_limits_;
  std::vector<std::unique_ptr<SimWorker>> workers_;
};

}  // namespace tiffany::sim
