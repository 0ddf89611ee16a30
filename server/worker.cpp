// Worker: the thread body, and the main thread's handles on it.
#include "server/worker.hpp"

#include <tiffany/coro/exception_message.hpp>
#include <tiffany/coro/scheduler.hpp>

#include "client/upstream/splice_pipes.hpp"
#include "handlers/engine/metrics.hpp"
#include "reactor/engine/reactor_factory.hpp"
#include "server/log/error_log.hpp"
#include "server/worker_runtime.hpp"

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
    // Declared before the runtime: the reactor must outlive the tasks.
    const ChosenReactor chosen = make_reactor(backend_choice(config_.backend));
    WorkerRuntime runtime(WorkerRuntime::Setup{.index = index_,
                                               .config = config_,
                                               .registry = registry_,
                                               .builtins = builtins_,
                                               .tls_contexts = tls_contexts_,
                                               .peer_limits = peer_limits_,
                                               .access_log_fd = access_log_fd_,
                                               .plugins = plugins_,
                                               .clock = nullptr},
                          sockets_, *chosen.reactor, open_, accepting_);
    {
      std::lock_guard lock(queue_mutex_);
      queue_ = runtime.scheduler().remote_queue();
    }
    const std::string backend = chosen.reactor->describe();
    Metrics::instance().set_backend(backend.substr(0, backend.find(' ')));
    accepting_.store(true, std::memory_order_release);
    ready.set_value(WorkerBackend{backend + " (" + chosen.reason + ")", chosen.fallback});
    announced = true;

    // The main thread's drain request runs this, on this thread.
    drain_ = [&runtime](std::chrono::milliseconds grace, Handover handover) { runtime.drain(grace, handover); };
    struct ForgetDrain {
      std::function<void(std::chrono::milliseconds, Handover)>& drain;
      ~ForgetDrain() { drain = nullptr; }  // it refers to the runtime
    } const forget_drain{drain_};
    runtime.scheduler().run();
    runtime.flush_access_log();
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
