// Worker: the thread body, and the main thread's handles on it.
#include "server/worker.hpp"

#include <limits>

#include <tiffany/coro/exception_message.hpp>
#include <tiffany/coro/join.hpp>
#include <tiffany/coro/scheduler.hpp>
#include <tiffany/coro/sleep.hpp>
#include <tiffany/coro/task_context.hpp>
#include <tiffany/coro/yield.hpp>
#include <tiffany/handlers/plugin_context.hpp>
#include <tiffany/http/request_context.hpp>

#include "client/upstream/splice_pipes.hpp"
#include "handlers/engine/metrics.hpp"
#include "handlers/engine/plugin_host.hpp"
#include "reactor/engine/reactor_factory.hpp"
#include "server/accept_loop.hpp"
#include "server/build_protocols.hpp"
#include "server/log/access_log.hpp"
#include "server/log/error_log.hpp"
#include "server/memory_trim.hpp"
#include "server/transport/connection_tracker.hpp"

namespace tiffany {
namespace {

BackendChoice backend_choice(IoBackend backend) {
  switch (backend) {
    case IoBackend::io_uring: return BackendChoice::io_uring;
    case IoBackend::epoll: return BackendChoice::epoll;
    case IoBackend::automatic: return BackendChoice::automatic;
  }
  return BackendChoice::automatic;
}

// Publishes what other threads may read (the open-connection count, the
// scheduler's counters) every 100 ms.
Task<void> publish_counters(const ConnectionTracker& tracker, std::atomic<std::size_t>& open,
                            WorkerCounters& counters) {
  for (;;) {
    open.store(tracker.size(), std::memory_order_relaxed);
    counters.publish(Scheduler::current().stats());
    co_await Sleep{std::chrono::milliseconds(100)};
  }
}

void log_task_failure(TaskId id, const std::exception_ptr& error) {
  if (!error_log().enabled(LogLevel::error)) return;
  error_log().log(LogLevel::error, "task %llu failed: %s", static_cast<unsigned long long>(id),
                  exception_message(error).c_str());
}

// Names the culprit from the task's context: the route and handler (and
// plugin) of the request it was answering, and the request id.
void log_slow_task(TaskId id, std::chrono::nanoseconds ran, const TaskContext* context) {
  if (!error_log().enabled(LogLevel::warn)) return;
  std::string culprit;
  if (const http::RouteInfo* route = http::kRoute.get_from(context)) {
    culprit = ": " + std::string(route->label) + " on route " + std::string(route->pattern);
  }
  if (const std::string* request_id = http::kRequestId.get_from(context)) culprit += ", request_id: " + *request_id;
  error_log().log(LogLevel::warn, "task %llu ran %.3f ms without suspending (did it forget to yield?)%s",
                  static_cast<unsigned long long>(id), std::chrono::duration<double, std::milli>(ran).count(),
                  culprit.c_str());
}

// How many queued connections a draining worker takes per listening socket
// when others take the sockets on (see accept_queued): a lost wakeup is one
// per canceled accept, so a few cover it, and a flood waiting in the backlog
// stays for the new acceptors.
constexpr std::size_t kMostQueuedToTake = 16;
// At a shutdown: everything queued (the backlog bounds it).
constexpr std::size_t kAllQueued = std::numeric_limits<std::size_t>::max();

// Closes the connections parked outside any task. Why while the scheduler
// still exists: their slots' release may wake tasks waiting for room.
struct CloseIdleOnExit {
  const std::vector<std::unique_ptr<Transport>>& protocols;
  ~CloseIdleOnExit() {
    for (const auto& protocol : protocols) protocol->close_idle();
  }
};

// The drain's steps that wait, as a task (the drain request runs outside
// any task). First the accept loops end. Why wait for them: an accept the
// kernel completed as it was canceled still hands its connection to its
// loop, which then serves it; stopping sooner would leave that connection
// open and unanswered. Then `take_queued` serves what waits in the listening
// sockets' queues (see accept_queued) and they close, the plugins' canceled
// background tasks run their cleanup (a task that will not end gets 1,000
// turns), and the tracker closes idle connections and stops the scheduler
// when none is left. Why not stop the scheduler from the request: the
// canceled tasks would get no turn to end in.
Task<void> drain_after_accepting(std::vector<JoinHandle<void>>& accept_loops, std::function<void()> take_queued,
                                 const PluginHost* plugins, std::size_t index, ConnectionTracker& tracker,
                                 std::chrono::milliseconds grace) {
  for (JoinHandle<void>& loop : accept_loops) {
    try {
      co_await Join{std::move(loop)};
    } catch (...) {
      // canceled, as asked; an accept loop that had failed was logged when it did
    }
  }
  take_queued();
  for (int turn = 0; plugins != nullptr && turn < 1000; ++turn) {
    if (plugins->worker_tasks_finished(index)) break;
    co_await Yield{};
  }
  tracker.drain(grace, [] { Scheduler::current().stop(); });
}

// The plugins' side of a worker's life: on the way out, their worker stop
// hooks run (if no drain ran them) and their background tasks are forgotten
// before the scheduler goes; their worker state goes after it.
struct WorkerPlugins {
  PluginHost* host;
  std::size_t index;
  ~WorkerPlugins() {
    if (host == nullptr) return;
    host->drain_worker(index);  // no-op when it ran already
    host->detach_worker(index);
    host->end_worker(index);
  }
};
struct WorkerPluginTasks {
  PluginHost* host;
  std::size_t index;
  ~WorkerPluginTasks() {
    if (host == nullptr) return;
    host->drain_worker(index);
    host->detach_worker(index);
  }
};
// The built-in handlers' background tasks are forgotten before the scheduler
// goes (it destroys what is left). Why not canceled at the drain, as the
// plugins' are: the proxy's probes keep its upstreams' health current for
// the requests the drain still serves.
struct ReleaseTasks {
  WorkerContext& context;
  ~ReleaseTasks() { context.release_tasks(); }
};

}  // namespace

Worker::Worker(std::size_t index, const Config& config, const HandlerRegistry& registry, AppContext& builtins,
               const TlsContexts& tls_contexts, const PeerConnectionLimits& peer_limits,
               std::vector<ListenSocket> sockets, int access_log_fd, PluginHost* plugins)
    : index_(index),
      config_(config),
      registry_(registry),
      builtins_(builtins),
      tls_contexts_(tls_contexts),
      peer_limits_(peer_limits),
      sockets_(std::move(sockets)),
      access_log_fd_(access_log_fd),
      plugins_(plugins) {}

Worker::~Worker() {
  stop();
  join();
}

WorkerBackend Worker::start() {
  std::promise<WorkerBackend> ready;
  std::future<WorkerBackend> started = ready.get_future();
  thread_ = std::thread([this, &ready] { run(ready); });
  return started.get();  // rethrows what the thread failed with
}

void Worker::run(std::promise<WorkerBackend>& ready) {
  ErrorLog::set_worker_of_this_thread(static_cast<int>(index_));
  bool announced = false;
  try {
    // Declared before the scheduler: the reactor must outlive the tasks.
    const ChosenReactor chosen = make_reactor(backend_choice(config_.backend));
    std::unique_ptr<AccessLog> access_log;
    if (access_log_fd_ >= 0) {
      access_log = std::make_unique<AccessLog>(access_log_fd_, config_.access_log.json ? AccessLogFormat::json
                                                                                        : AccessLogFormat::common);
    }
    const std::size_t workers = std::max<std::size_t>(config_.workers, 1);
    ConnectionTracker tracker((config_.max_connections + workers - 1) / workers);
    // Declared before the protocols: idle connections they park hold slots counted here.
    std::vector<std::unique_ptr<ListenerLimits>> listener_limits;
    for (std::size_t i = 0; i < config_.listeners.size(); ++i) {
      const ListenerConfig& listener = config_.listeners[i];
      const std::size_t total = listener.connection_limits.max_connections;
      listener_limits.push_back(std::make_unique<ListenerLimits>(listener.name, (total + workers - 1) / workers,
                                                                 peer_limits_.at(i).get()));
    }
    // Plugins' worker hooks run before the handlers are built; their state outlives the scheduler.
    const WorkerPlugins plugins{plugins_, index_};
    if (plugins_ != nullptr) plugins_->start_worker(index_);
    // The built-in handlers' context on this worker, as each plugin's handlers have theirs: their
    // per-worker state (the proxy's upstreams) and background tasks (its health probes). Before the
    // protocols (their handlers keep it); its state goes after the scheduler.
    WorkerContext builtins(builtins_, static_cast<int>(index_));
    const auto protocols = build_protocols(config_, registry_, builtins, tls_contexts_, access_log.get(), &tracker);
    // Why: declared after everything the tasks use, so its destructor (which
    // destroys unfinished connection tasks) runs while those still exist.
    const SchedulerConfig& tuning = config_.scheduler;
    Scheduler scheduler(SchedulerOptions{
        .poller = chosen.reactor.get(),
        .policy = tuning.priority_policy ? SchedulingPolicy::priority : SchedulingPolicy::fifo,
        .max_resumes_between_polls = tuning.max_resumes_between_polls,
        .slow_task_threshold = std::chrono::milliseconds(tuning.slow_task_warning_ms),
        .trace_capacity = tuning.trace_events,
        .worker = static_cast<int>(index_)});
    scheduler.set_failure_logger(log_task_failure);
    scheduler.set_slow_task_logger(log_slow_task);
    const WorkerPluginTasks plugin_tasks{plugins_, index_};  // before the scheduler goes
    if (plugins_ != nullptr) plugins_->attach_worker(index_, scheduler);
    const ReleaseTasks builtin_tasks{builtins};  // before the scheduler goes

    std::vector<JoinHandle<void>> accept_loops;
    for (std::size_t i = 0; i < sockets_.size(); ++i) {
      accept_loops.push_back(
          scheduler.spawn(accept_loop(sockets_[i].fd.get(), *protocols[i], tracker, *listener_limits[i])));
    }
    (void)scheduler.spawn(publish_counters(tracker, open_, Metrics::instance().add_worker()));
    (void)scheduler.spawn(trim_memory_after_bursts(tracker));
    builtins.attach(scheduler);  // the tasks the built-ins queued start: the proxy's health probes
    if (access_log) (void)scheduler.spawn(access_log->flush_every(std::chrono::seconds(1)));
    {
      std::lock_guard lock(queue_mutex_);
      queue_ = scheduler.remote_queue();
    }
    const std::string backend = chosen.reactor->describe();
    Metrics::instance().set_backend(backend.substr(0, backend.find(' ')));
    accepting_.store(true, std::memory_order_release);
    ready.set_value(WorkerBackend{backend + " (" + chosen.reason + ")", chosen.fallback});
    announced = true;

    // The main thread's drain request runs this, on this thread.
    drain_ = [&](std::chrono::milliseconds grace, Handover handover) {
      for (JoinHandle<void>& loop : accept_loops) loop.cancel();  // stop accepting
      const bool with_plugins = plugins_ != nullptr && !plugins_->empty();
      if (with_plugins) plugins_->drain_worker(index_);  // stop_worker hooks, background tasks canceled
      // Why `handover` by value: this runs after the accept loops end, when this call has returned.
      const auto take_queued = [&, handover] {
        for (std::size_t i = 0; i < sockets_.size(); ++i) {
          // Why all of them at a shutdown: the sockets close next, and the kernel resets
          // what is left in their queues; nginx answers those too.
          accept_queued(sockets_[i].fd.get(), *protocols[i], tracker, *listener_limits[i],
                        handover == Handover::none ? kAllQueued : kMostQueuedToTake);
        }
        sockets_.clear();  // the listeners close (for good, unless another generation holds them too)
        accepting_.store(false, std::memory_order_release);
      };
      (void)scheduler.spawn(drain_after_accepting(accept_loops, take_queued, with_plugins ? plugins_ : nullptr,
                                                  index_, tracker, grace));
    };
    const CloseIdleOnExit close_idle{protocols};  // before the scheduler goes, however we leave
    struct ForgetDrain {
      std::function<void(std::chrono::milliseconds, Handover)>& drain;
      ~ForgetDrain() { drain = nullptr; }  // it refers to this scope's locals
    } const forget_drain{drain_};
    scheduler.run();
    if (access_log) access_log->flush();
  } catch (...) {
    if (!announced) {
      ready.set_exception(std::current_exception());
    } else {
      // The line's prefix names the worker: "worker 1: stopped: ...".
      error_log().log(LogLevel::crit, "stopped: %s", exception_message(std::current_exception()).c_str());
    }
  }
  upstream::SplicePipes::for_this_thread().clear();  // the proxy's kept pipes close with their worker
  {
    std::lock_guard lock(queue_mutex_);
    queue_.reset();
  }
  accepting_.store(false, std::memory_order_release);
  finished_.store(true, std::memory_order_release);
}

void Worker::post(RemoteQueue::Callback callback) {
  std::lock_guard lock(queue_mutex_);
  if (queue_) queue_->post(std::move(callback));
}

void Worker::drain(std::chrono::milliseconds idle_grace, Handover handover) {
  post([this, idle_grace, handover] {
    if (drain_) drain_(idle_grace, handover);
  });
}

void Worker::stop() {
  post([] { Scheduler::current().stop(); });
}

void Worker::join() {
  if (thread_.joinable()) thread_.join();
}

}  // namespace tiffany
