// Worker: one thread with its own reactor, scheduler, listeners and handlers.
#pragma once

#include <atomic>
#include <chrono>
#include <exception>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <tiffany/coro/remote_queue.hpp>

#include "conf/config.hpp"
#include "server/build_tls_contexts.hpp"
#include "server/listen_socket.hpp"
#include "server/transport/listener_limits.hpp"
#include "server/worker_runtime.hpp"

namespace tiffany {

class AppContext;
class HandlerRegistry;
class PluginHost;

/// The I/O backend a worker runs on, for the start-up lines.
struct WorkerBackend {
  std::string description;  // "io_uring (probed and working)"
  bool fallback = false;    // `auto` could not use io_uring; `description` says why
};

/// Shared-nothing: a worker owns its listening sockets (one per listener,
/// SO_REUSEPORT), builds its own protocols and handlers (a WorkerRuntime
/// over its own reactor), and talks to the main thread only through its
/// RemoteQueue (drain, stop).
class Worker {
 public:
  /// `access_log_fd` < 0: no access log. `builtins` (the built-in
  /// handlers' process-wide context: the worker makes its WorkerContext on
  /// it), `peer_limits` (one per listener, shared by the workers) and
  /// `plugins` (started; may be null) must outlive the worker.
  Worker(std::size_t index, const Config& config, const HandlerRegistry& registry, AppContext& builtins,
         const TlsContexts& tls_contexts, const PeerConnectionLimits& peer_limits, std::vector<ListenSocket> sockets,
         int access_log_fd, PluginHost* plugins = nullptr);
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;
  ~Worker();

  /// Starts the thread and waits until it serves; rethrows a start-up failure.
  /// Returns the I/O backend it chose.
  WorkerBackend start();
  /// Any thread: stop accepting, let requests in flight finish, close idle
  /// connections after `idle_grace`; the thread ends when none is left.
  /// With Handover::none (a shutdown) every connection already queued on
  /// the listening sockets is accepted and answered before they close; when
  /// another generation or binary takes the sockets on, only a few (the
  /// wakeups a canceled accept may have lost) and the rest wait for it.
  void drain(std::chrono::milliseconds idle_grace, Handover handover);
  /// Any thread: end now, whatever is in flight.
  void stop();
  bool finished() const noexcept { return finished_.load(std::memory_order_acquire); }
  /// Whether it still accepts connections (from start() until a drain has
  /// closed its listening descriptors, or it ended).
  bool accepting() const noexcept { return accepting_.load(std::memory_order_acquire); }
  std::size_t open_connections() const noexcept { return open_.load(std::memory_order_relaxed); }
  void join();

 private:
  void run(std::promise<WorkerBackend>& ready);
  void post(RemoteQueue::Callback callback);

  std::size_t index_;
  const Config& config_;
  const HandlerRegistry& registry_;
  AppContext& builtins_;
  const TlsContexts& tls_contexts_;
  const PeerConnectionLimits& peer_limits_;
  std::vector<ListenSocket> sockets_;
  int access_log_fd_;
  PluginHost* plugins_;
  std::thread thread_;
  std::mutex queue_mutex_;
  std::shared_ptr<RemoteQueue> queue_;  // the scheduler's, once it runs
  std::atomic<bool> finished_{false};
  std::atomic<bool> accepting_{false};
  std::atomic<std::size_t> open_{0};  // published for the drain-timeout message
  std::function<void(std::chrono::milliseconds, Handover)> drain_;  // set while serving; worker thread only
};

}  // namespace tiffany
