// WorkerRuntime: what one worker serves with, built in order over the reactor it is given.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <memory>
#include <vector>

#include <tiffany/coro/scheduler.hpp>
#include <tiffany/handlers/plugin_context.hpp>
#include <tiffany/reactor/reactor.hpp>

#include "conf/config.hpp"
#include "server/build_tls_contexts.hpp"
#include "server/listen_socket.hpp"
#include "server/log/access_log.hpp"
#include "server/transport/connection_tracker.hpp"
#include "server/transport/listener_limits.hpp"
#include "server/transport/transport.hpp"

namespace tiffany {

class AppContext;
class HandlerRegistry;
class ManualClock;
class PluginHost;

/// Who takes the listening sockets on when a worker drains.
enum class Handover {
  none,             ///< a shutdown: the sockets close for good
  next_generation,  ///< a reload: the next configuration's workers accept on them
  new_binary,       ///< an upgrade (SIGUSR2): the new executable accepts on them
};

/// One worker's server, whatever runs it: the access log, the connection
/// tracker and listener limits, the plugins' worker hooks and the built-in
/// handlers' context, each listener's transport and protocol, the scheduler,
/// and its tasks (an accept loop per listening socket, the published
/// counters, the memory trim, the built-ins' and the access log's tasks).
/// Worker builds one on its own thread and runs its scheduler; the
/// simulation builds several on one thread (Scheduler::SharedThread) over
/// simulated reactors and steps them. Members are declared in the order the
/// worker's parts must be built, so they go in the reverse.
///
/// Build it with `reactor` the thread's current one (Reactor::CurrentScope
/// on a shared thread). Everything in `Setup` and `sockets`, `open` and
/// `accepting` must outlive it.
class WorkerRuntime {
 public:
  struct Setup {
    std::size_t index;
    const Config& config;
    const HandlerRegistry& registry;
    AppContext& builtins;
    const TlsContexts& tls_contexts;
    const PeerConnectionLimits& peer_limits;
    int access_log_fd;    // < 0: no access log
    PluginHost* plugins;  // started; may be null
    ManualClock* clock;   // virtual time for the scheduler; null: the real clock
  };

  /// `sockets`: the worker's listening sockets (a drain closes them);
  /// `open`: where the open-connection count is published (every 100 ms);
  /// `accepting`: set false once a drain has closed the sockets.
  WorkerRuntime(const Setup& setup, std::vector<ListenSocket>& sockets, Reactor& reactor,
                std::atomic<std::size_t>& open, std::atomic<bool>& accepting);
  WorkerRuntime(const WorkerRuntime&) = delete;
  WorkerRuntime& operator=(const WorkerRuntime&) = delete;
  ~WorkerRuntime();

  Scheduler& scheduler() noexcept { return scheduler_; }
  const ConnectionTracker& tracker() const noexcept { return tracker_; }
  /// On the worker's thread, outside its tasks: stop accepting, let requests
  /// in flight finish, close idle connections after `grace`; the scheduler
  /// stops once no connection is left (see Worker::drain).
  void drain(std::chrono::milliseconds grace, Handover handover);
  /// Writes what the access log holds.
  void flush_access_log();

 private:
  // The plugins' side of a worker's life: their worker hooks start with it;
  // on the way out, their worker stop hooks run (if no drain ran them) and
  // their background tasks are forgotten before the scheduler goes; their
  // worker state goes after it.
  struct PluginWorker {
    PluginHost* host;
    std::size_t index;
    PluginWorker(PluginHost* plugin_host, std::size_t worker);
    ~PluginWorker();
    void end() noexcept;
  };
  struct PluginWorkerTasks {
    PluginHost* host;
    std::size_t index;
    PluginWorkerTasks(PluginHost* plugin_host, std::size_t worker, Scheduler& scheduler);
    ~PluginWorkerTasks();
  };
  // The built-in handlers' background tasks are forgotten before the
  // scheduler goes (it destroys what is left). Why not canceled at the
  // drain, as the plugins' are: the proxy's probes keep its upstreams'
  // health current for the requests the drain still serves.
  struct ReleaseTasks {
    WorkerContext& context;
    ~ReleaseTasks() { context.release_tasks(); }
  };
  // Closes the connections parked outside any task. Why while the scheduler
  // still exists: their slots' release may wake tasks waiting for room.
  struct CloseIdleOnExit {
    const std::vector<std::unique_ptr<Transport>>& protocols;
    ~CloseIdleOnExit() {
      for (const auto& protocol : protocols) protocol->close_idle();
    }
  };

  Setup setup_;
  std::vector<ListenSocket>& sockets_;
  std::atomic<bool>& accepting_;
  std::unique_ptr<AccessLog> access_log_;
  ConnectionTracker tracker_;
  // Before the protocols: idle connections they park hold slots counted here.
  std::vector<std::unique_ptr<ListenerLimits>> listener_limits_;
  // Plugins' worker hooks run before the handlers are built; their state outlives the scheduler.
  PluginWorker plugin_worker_;
  // The built-in handlers' context on this worker, as each plugin's handlers have theirs: their
  // per-worker state (the proxy's upstreams) and background tasks (its health probes). Before the
  // protocols (their handlers keep it); its state goes after the scheduler.
  WorkerContext builtins_;
  std::vector<std::unique_ptr<Transport>> protocols_;
  // Why after everything the tasks use: its destructor (which destroys
  // unfinished connection tasks) runs while those still exist.
  Scheduler scheduler_;
  PluginWorkerTasks plugin_tasks_;  // before the scheduler goes
  ReleaseTasks builtin_tasks_;      // before the scheduler goes
  std::vector<JoinHandle<void>> accept_loops_;
  CloseIdleOnExit close_idle_;  // before the scheduler goes, however the worker ends
};

}  // namespace tiffany
