// PluginHost: the loaded plugins, their contexts, and their lifecycle through the server's.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include <tiffany/handlers/plugin_context.hpp>

namespace tiffany {

/// One loaded plugin: its library, hooks and contexts.
class LoadedPlugin {
 public:
  LoadedPlugin(std::string path, std::string name, void* library);
  LoadedPlugin(const LoadedPlugin&) = delete;
  LoadedPlugin& operator=(const LoadedPlugin&) = delete;
  ~LoadedPlugin();

  const std::string& path() const noexcept { return path_; }
  const std::string& name() const noexcept { return app_.plugin_name(); }
  AppContext& app() noexcept { return app_; }
  const Logger& logger() const noexcept { return app_.logger(); }
  /// Worker `index`'s context; the config-check context for index < 0 or
  /// before start().
  WorkerContext& worker(int index) noexcept;

 private:
  friend class PluginHost;
  std::string path_;
  void* library_;  // dlopen handle, or null (in tests)
  std::unique_ptr<Plugin> hooks_;  // null: the plugin gave none
  AppContext app_;
  WorkerContext checking_{app_, -1};
  std::vector<std::unique_ptr<WorkerContext>> workers_;
  bool started_ = false;
  std::vector<unsigned char> worker_started_;  // Why not vector<bool>: workers write their own entries at once
};

/// Owns every loaded plugin for the life of the process (declare it before
/// the HandlerRegistry that holds their factories, so it outlives them) and
/// runs their hooks as the server starts and stops. The libraries stay
/// mapped until exit (a job on the offload pool may still run their code);
/// "unloaded" means every object the plugin made has been destroyed.
///
/// Threads: add/start/stop on the main thread while no worker runs; the
/// *_worker calls on worker `index`'s own thread.
class PluginHost {
 public:
  PluginHost() = default;
  PluginHost(const PluginHost&) = delete;
  PluginHost& operator=(const PluginHost&) = delete;
  ~PluginHost();

  /// Takes a plugin just loaded (before its init runs).
  LoadedPlugin& add(std::string path, void* library);
  /// Sets a plugin's hooks (PluginRegistrar::set_plugin); std::logic_error on a second.
  static void set_hooks(LoadedPlugin& plugin, std::unique_ptr<Plugin> hooks);
  bool empty() const noexcept { return plugins_.empty(); }

  /// Makes `workers` worker contexts per plugin and runs each Plugin::start,
  /// in load order. Throws std::runtime_error naming the plugin whose start
  /// threw (the ones started before are stopped first).
  void start(std::size_t workers);
  /// Worker thread, before it builds its handlers: each Plugin::start_worker.
  /// Throws std::runtime_error naming the plugin.
  void start_worker(std::size_t index);
  /// Worker thread, once its scheduler exists: starts queued background tasks.
  void attach_worker(std::size_t index, Scheduler& scheduler);
  /// Worker thread, when the drain begins (or the worker ends without one):
  /// each Plugin::stop_worker (errors logged), then background tasks canceled.
  /// Runs once per worker.
  void drain_worker(std::size_t index) noexcept;
  /// Worker thread: have the background tasks of every plugin on worker `index` ended?
  bool worker_tasks_finished(std::size_t index) const noexcept;
  /// Worker thread, before its scheduler is destroyed: forgets the tasks.
  void detach_worker(std::size_t index) noexcept;
  /// Worker thread, once its scheduler and handlers are gone: the worker state.
  void end_worker(std::size_t index) noexcept;
  /// Each Plugin::stop that started, newest first (errors logged), then the
  /// state and hooks are destroyed. Runs once.
  void stop() noexcept;

 private:
  std::vector<std::unique_ptr<LoadedPlugin>> plugins_;
  bool stopped_ = false;
};

/// "kv" for ".../libkv.so": the file name without `lib` and `.so`.
std::string plugin_name_from_path(const std::string& path);

}  // namespace tiffany
