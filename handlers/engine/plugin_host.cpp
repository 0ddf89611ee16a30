// PluginHost: running the plugins' hooks in the server's order.
#include "handlers/engine/plugin_host.hpp"

#include <exception>
#include <stdexcept>

#include <tiffany/coro/exception_message.hpp>

namespace tiffany {
namespace {

// Runs a stop hook; what it throws becomes an error line tagged with the plugin.
template <class Hook>
void run_stop_hook(const LoadedPlugin& plugin, const char* which, Hook&& hook) noexcept {
  try {
    hook();
  } catch (...) {
    plugin.logger().error(std::string(which) + " failed: " + exception_message(std::current_exception()));
  }
}

}  // namespace

LoadedPlugin::LoadedPlugin(std::string path, std::string name, void* library)
    : path_(std::move(path)), library_(library), app_(std::move(name), 0) {}

LoadedPlugin::~LoadedPlugin() {
  // Why this order: tasks and state may point into each other and into the hooks object.
  workers_.clear();
  checking_.release_tasks();
  app_.clear_state();
  hooks_.reset();
}

WorkerContext& LoadedPlugin::worker(int index) noexcept {
  if (index < 0 || static_cast<std::size_t>(index) >= workers_.size()) return checking_;
  return *workers_[static_cast<std::size_t>(index)];
}

PluginHost::~PluginHost() { stop(); }

LoadedPlugin& PluginHost::add(std::string path, void* library) {
  std::string name = plugin_name_from_path(path);
  plugins_.push_back(std::make_unique<LoadedPlugin>(std::move(path), std::move(name), library));
  return *plugins_.back();
}

void PluginHost::set_hooks(LoadedPlugin& plugin, std::unique_ptr<Plugin> hooks) {
  if (plugin.hooks_) throw std::logic_error("set_plugin called twice");
  if (!hooks) throw std::invalid_argument("set_plugin needs a Plugin");
  plugin.hooks_ = std::move(hooks);
}

void PluginHost::start(std::size_t workers) {
  for (auto& plugin : plugins_) {
    plugin->app_.set_workers(workers);
    plugin->workers_.clear();
    plugin->worker_started_.assign(workers, 0);
    for (std::size_t w = 0; w < workers; ++w) {
      plugin->workers_.push_back(std::make_unique<WorkerContext>(plugin->app_, static_cast<int>(w)));
    }
  }
  for (auto& plugin : plugins_) {
    try {
      if (plugin->hooks_) plugin->hooks_->start(plugin->app_);
      plugin->started_ = true;
    } catch (...) {
      const std::string why = exception_message(std::current_exception());
      stop();
      throw std::runtime_error("plugin \"" + plugin->name() + "\" (" + plugin->path() + ") failed to start: " + why);
    }
  }
}

void PluginHost::start_worker(std::size_t index) {
  for (auto& plugin : plugins_) {
    if (index >= plugin->workers_.size()) continue;
    try {
      if (plugin->hooks_) plugin->hooks_->start_worker(*plugin->workers_[index]);
      plugin->worker_started_[index] = 1;
    } catch (...) {
      throw std::runtime_error("plugin \"" + plugin->name() + "\" (" + plugin->path() +
                               ") failed to start on the worker: " + exception_message(std::current_exception()));
    }
  }
}

void PluginHost::attach_worker(std::size_t index, Scheduler& scheduler) {
  for (auto& plugin : plugins_) {
    if (index < plugin->workers_.size()) plugin->workers_[index]->attach(scheduler);
  }
}

void PluginHost::drain_worker(std::size_t index) noexcept {
  for (auto it = plugins_.rbegin(); it != plugins_.rend(); ++it) {
    LoadedPlugin& plugin = **it;
    if (index >= plugin.workers_.size() || !plugin.worker_started_[index]) continue;
    plugin.worker_started_[index] = 0;  // once
    WorkerContext& worker = *plugin.workers_[index];
    if (plugin.hooks_) run_stop_hook(plugin, "stop_worker", [&] { plugin.hooks_->stop_worker(worker); });
    worker.cancel_tasks();
  }
}

bool PluginHost::worker_tasks_finished(std::size_t index) const noexcept {
  for (const auto& plugin : plugins_) {
    if (index < plugin->workers_.size() && !plugin->workers_[index]->tasks_finished()) return false;
  }
  return true;
}

void PluginHost::detach_worker(std::size_t index) noexcept {
  for (auto& plugin : plugins_) {
    if (index < plugin->workers_.size()) plugin->workers_[index]->release_tasks();
  }
}

void PluginHost::end_worker(std::size_t index) noexcept {
  for (auto it = plugins_.rbegin(); it != plugins_.rend(); ++it) {
    if (index < (*it)->workers_.size()) (*it)->workers_[index]->clear_state();
  }
}

void PluginHost::stop() noexcept {
  if (stopped_) return;
  stopped_ = true;
  for (auto it = plugins_.rbegin(); it != plugins_.rend(); ++it) {
    LoadedPlugin& plugin = **it;
    if (!plugin.started_) continue;
    plugin.started_ = false;
    if (plugin.hooks_) run_stop_hook(plugin, "stop", [&] { plugin.hooks_->stop(plugin.app_); });
  }
  for (auto it = plugins_.rbegin(); it != plugins_.rend(); ++it) {
    LoadedPlugin& plugin = **it;
    for (auto& worker : plugin.workers_) {
      worker->release_tasks();
      worker->clear_state();
    }
    plugin.workers_.clear();
    plugin.app_.clear_state();
    plugin.hooks_.reset();
  }
}

std::string plugin_name_from_path(const std::string& path) {
  std::string name = path.substr(path.find_last_of('/') + 1);
  if (name.starts_with("lib")) name.erase(0, 3);
  if (const auto so = name.find(".so"); so != std::string::npos && so > 0) name.erase(so);
  return name;
}

}  // namespace tiffany
