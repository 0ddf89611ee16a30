// The plugin lifecycle (Plugin) and the contexts it and its handlers share.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <tiffany/coro/scheduler.hpp>
#include <tiffany/coro/task.hpp>
#include <tiffany/handlers/plugin_logger.hpp>
#include <tiffany/handlers/plugin_state.hpp>

namespace tiffany {

/// One plugin's process-wide context: made when the plugin loads, lives
/// until it is unloaded. Holds the plugin's shared state (one object per
/// type) and its logger.
///
/// Threads: create state in Plugin::start (main thread, before any worker
/// runs) and destroy it in Plugin::stop (after every worker ended); between
/// the two, workers may call get/find at once, and what the state does
/// inside must be thread-safe (a mutex, atomics: the workers share it).
class AppContext : public detail::ContextState {
 public:
  AppContext(std::string plugin_name, std::size_t workers)
      : ContextState("plugin \"" + plugin_name + "\" has no process-wide state of that type (made in Plugin::start?)"),
        logger_(plugin_name),
        name_(std::move(plugin_name)),
        workers_(workers) {}
  AppContext(const AppContext&) = delete;
  AppContext& operator=(const AppContext&) = delete;

  /// The plugin's name: its file's, without `lib` and `.so` ("kv" for libkv.so).
  const std::string& plugin_name() const noexcept { return name_; }
  /// How many workers serve (each gets a WorkerContext).
  std::size_t workers() const noexcept { return workers_; }
  const Logger& logger() const noexcept { return logger_; }

  // emplace<T>(args...) makes the plugin's process-wide T (main thread, in
  // Plugin::start); get<T>() and find<T>() reach it (see ContextState).

  // ---- the server's side ----
  void set_workers(std::size_t workers) noexcept { workers_ = workers; }

 private:
  Logger logger_;
  std::string name_;
  std::size_t workers_;
};

/// One plugin's context on one worker: its per-worker state and background
/// tasks. Handlers reach it through HandlerParams::worker() (keep the
/// reference; it outlives every handler built with it).
///
/// Threads: everything here runs on the worker's own thread (Plugin hooks
/// for this worker, the handlers it built, its tasks): no locking needed.
/// Config checks build handlers with a context of their own, checking() ==
/// true, that has no state and runs no task: factories should only read
/// their params and keep the context; reach state when handling a request.
class WorkerContext : public detail::ContextState {
 public:
  /// `index` < 0: the context config checks build handlers with.
  WorkerContext(AppContext& app, int index)
      : ContextState("plugin \"" + app.plugin_name() +
                     "\" has no per-worker state of that type (made in Plugin::start_worker?)"),
        app_(app),
        index_(index) {}
  WorkerContext(const WorkerContext&) = delete;
  WorkerContext& operator=(const WorkerContext&) = delete;
  ~WorkerContext() { release_tasks(); }

  AppContext& app() const noexcept { return app_; }
  /// The worker's index, 0 to app().workers() - 1; -1 while checking.
  int index() const noexcept { return index_; }
  /// True for the context config checks build handlers with (no worker runs).
  bool checking() const noexcept { return index_ < 0; }
  const Logger& logger() const noexcept { return app_.logger(); }

  // emplace<T>(args...) makes this worker's T (in Plugin::start_worker, or
  // lazily from a handler); get<T>() and find<T>() reach it (see ContextState).

  /// Runs `task` in the background on this worker until the worker drains:
  /// after Plugin::stop_worker it is canceled (its next co_await throws
  /// TaskCanceled; catch it only to clean up). An exception ending it is
  /// logged. From Plugin::start_worker (it starts once the worker's
  /// scheduler runs) or from a task on this worker. Throws std::logic_error
  /// while checking() or once the worker drains.
  void spawn(Task<void> task);

  // ---- the server's side (worker thread) ----
  /// Spawns the tasks queued by start_worker on `scheduler`, and later ones at once.
  void attach(Scheduler& scheduler);
  /// Cancels the background tasks; spawn() refuses from now on.
  void cancel_tasks() noexcept;
  /// True when every background task has ended (after cancel_tasks: they ran their cleanup).
  bool tasks_finished() const noexcept;
  /// Detaches from the scheduler (before it is destroyed); drops queued tasks.
  void release_tasks() noexcept;

 private:
  AppContext& app_;
  int index_;
  Scheduler* scheduler_ = nullptr;
  bool stopped_ = false;
  std::vector<Task<void>> queued_;
  std::vector<JoinHandle<void>> running_;
};

/// A plugin's lifecycle hooks; register one with PluginRegistrar::set_plugin.
/// Every hook is optional. Order, for a server with N workers:
///   start(app)                       main thread, once, before any worker runs
///   start_worker(worker) × N         each worker's thread, before it accepts
///   ... serving ...
///   stop_worker(worker) × N          each worker's thread, when the drain begins
///                                    (then its background tasks are canceled)
///   stop(app)                        main thread, once, after every worker ended,
///                                    before the plugin is unloaded
/// An exception from start or start_worker stops start-up with a line naming
/// the plugin; one from a stop hook is logged and the shutdown goes on.
/// stop_worker and stop run only if the matching start ran (and returned).
class Plugin {
 public:
  virtual ~Plugin() = default;
  virtual void start(AppContext& /*app*/) {}
  virtual void start_worker(WorkerContext& /*worker*/) {}
  virtual void stop_worker(WorkerContext& /*worker*/) {}
  virtual void stop(AppContext& /*app*/) {}
};

}  // namespace tiffany
