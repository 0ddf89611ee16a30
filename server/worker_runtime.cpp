// WorkerRuntime: a worker's parts built in order, its tasks spawned, and its drain.
#include "server/worker_runtime.hpp"

#include <algorithm>
#include <functional>
#include <limits>
#include <string>

#include <tiffany/coro/exception_message.hpp>
#include <tiffany/coro/join.hpp>
#include <tiffany/coro/sleep.hpp>
#include <tiffany/coro/task_context.hpp>
#include <tiffany/coro/yield.hpp>
#include <tiffany/http/request_context.hpp>

#include "handlers/engine/metrics.hpp"
#include "handlers/engine/plugin_host.hpp"
#include "server/accept_loop.hpp"
#include "server/build_protocols.hpp"
#include "server/log/error_log.hpp"
#include "server/memory_trim.hpp"

namespace tiffany {
namespace {

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

std::unique_ptr<AccessLog> open_access_log(const Config& config, int fd) {
  if (fd < 0) return nullptr;
  return std::make_unique<AccessLog>(fd, config.access_log.json ? AccessLogFormat::json : AccessLogFormat::common);
}

// A worker's share of a process-wide limit, rounded up.
std::size_t share_of(std::size_t total, const Config& config) {
  const std::size_t workers = std::max<std::size_t>(config.workers, 1);
  return (total + workers - 1) / workers;
}

std::vector<std::unique_ptr<ListenerLimits>> make_listener_limits(const WorkerRuntime::Setup& setup) {
  std::vector<std::unique_ptr<ListenerLimits>> limits;
  for (std::size_t i = 0; i < setup.config.listeners.size(); ++i) {
    const ListenerConfig& listener = setup.config.listeners[i];
    limits.push_back(std::make_unique<ListenerLimits>(
        listener.name, share_of(listener.connection_limits.max_connections, setup.config),
        setup.peer_limits.at(i).get()));
  }
  return limits;
}

SchedulerOptions scheduler_options(const WorkerRuntime::Setup& setup, Reactor& reactor) {
  const SchedulerConfig& tuning = setup.config.scheduler;
  return SchedulerOptions{.poller = &reactor,
                          .clock = setup.clock,
                          .policy = tuning.priority_policy ? SchedulingPolicy::priority : SchedulingPolicy::fifo,
                          .max_resumes_between_polls = tuning.max_resumes_between_polls,
                          .slow_task_threshold = std::chrono::milliseconds(tuning.slow_task_warning_ms),
                          .trace_capacity = tuning.trace_events,
                          .worker = static_cast<int>(setup.index)};
}

}  // namespace

WorkerRuntime::PluginWorker::PluginWorker(PluginHost* plugin_host, std::size_t worker)
    : host(plugin_host), index(worker) {
  if (host == nullptr) return;
  try {
    host->start_worker(index);
  } catch (...) {
    // Why: the plugins whose hooks ran before the one that threw end as on
    // any way out (the destructor does not run for a constructor that threw).
    end();
    throw;
  }
}

WorkerRuntime::PluginWorker::~PluginWorker() {
  if (host != nullptr) end();
}

void WorkerRuntime::PluginWorker::end() noexcept {
  host->drain_worker(index);  // no-op when it ran already
  host->detach_worker(index);
  host->end_worker(index);
}

WorkerRuntime::PluginWorkerTasks::PluginWorkerTasks(PluginHost* plugin_host, std::size_t worker, Scheduler& scheduler)
    : host(plugin_host), index(worker) {
  if (host != nullptr) host->attach_worker(index, scheduler);
}

WorkerRuntime::PluginWorkerTasks::~PluginWorkerTasks() {
  if (host == nullptr) return;
  host->drain_worker(index);
  host->detach_worker(index);
}

WorkerRuntime::WorkerRuntime(const Setup& setup, std::vector<ListenSocket>& sockets, Reactor& reactor,
                             std::atomic<std::size_t>& open, std::atomic<bool>& accepting)
    : setup_(setup),
      sockets_(sockets),
      accepting_(accepting),
      access_log_(open_access_log(setup.config, setup.access_log_fd)),
      tracker_(share_of(setup.config.max_connections, setup.config)),
      listener_limits_(make_listener_limits(setup)),
      plugin_worker_(setup.plugins, setup.index),
      builtins_(setup.builtins, static_cast<int>(setup.index)),
      protocols_(
          build_protocols(setup.config, setup.registry, builtins_, setup.tls_contexts, access_log_.get(), &tracker_)),
      scheduler_(scheduler_options(setup, reactor)),
      plugin_tasks_(setup.plugins, setup.index, scheduler_),
      builtin_tasks_{builtins_},
      close_idle_{protocols_} {
  // Why current for these spawns: on a thread of its own the new scheduler
  // already is; on a shared one (the simulation) it is made so here.
  Scheduler::CurrentScope current_scheduler(scheduler_);
  Reactor::CurrentScope current_reactor(reactor);
  scheduler_.set_failure_logger(log_task_failure);
  scheduler_.set_slow_task_logger(log_slow_task);
  for (std::size_t i = 0; i < sockets_.size(); ++i) {
    accept_loops_.push_back(
        scheduler_.spawn(accept_loop(sockets_[i].fd.get(), *protocols_[i], tracker_, *listener_limits_[i])));
  }
  (void)scheduler_.spawn(publish_counters(tracker_, open, Metrics::instance().add_worker()));
  (void)scheduler_.spawn(trim_memory_after_bursts(tracker_));
  builtins_.attach(scheduler_);  // the tasks the built-ins queued start: the proxy's health probes
  if (access_log_) (void)scheduler_.spawn(access_log_->flush_every(std::chrono::seconds(1)));
}

WorkerRuntime::~WorkerRuntime() = default;

void WorkerRuntime::drain(std::chrono::milliseconds grace, Handover handover) {
  for (JoinHandle<void>& loop : accept_loops_) loop.cancel();  // stop accepting
  PluginHost* plugins = setup_.plugins;
  const bool with_plugins = plugins != nullptr && !plugins->empty();
  if (with_plugins) plugins->drain_worker(setup_.index);  // stop_worker hooks, background tasks canceled
  // Why `handover` by value: this runs after the accept loops end, when this call has returned.
  const auto take_queued = [this, handover] {
    for (std::size_t i = 0; i < sockets_.size(); ++i) {
      // Why all of them at a shutdown: the sockets close next, and the kernel resets
      // what is left in their queues; nginx answers those too.
      accept_queued(sockets_[i].fd.get(), *protocols_[i], tracker_, *listener_limits_[i],
                    handover == Handover::none ? kAllQueued : kMostQueuedToTake);
    }
    sockets_.clear();  // the listeners close (for good, unless another generation holds them too)
    accepting_.store(false, std::memory_order_release);
  };
  (void)scheduler_.spawn(drain_after_accepting(accept_loops_, take_queued, with_plugins ? plugins : nullptr,
                                               setup_.index, tracker_, grace));
}

void WorkerRuntime::flush_access_log() {
  if (access_log_) access_log_->flush();
}

}  // namespace tiffany
