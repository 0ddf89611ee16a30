// load_handlers: the handlers and middleware one config can name — built-ins, the proxy, its plugins'.
#pragma once

#include <memory>

#include <tiffany/handlers/handler_registry.hpp>
#include <tiffany/handlers/plugin_context.hpp>

#include "handlers/engine/plugin_host.hpp"

namespace tiffany {

struct Config;

/// A registry, the plugins whose factories it holds, and the built-ins'
/// contexts. Why one object: the host and the contexts must outlive the
/// registry (declared first, destroyed last).
struct LoadedHandlers {
  PluginHost plugins;
  /// The built-in handlers' and middleware's contexts, as each plugin's
  /// handlers have theirs: the process-wide one (each worker makes its
  /// WorkerContext on it, Worker::run), and the one config checks build
  /// them with. Their factories reach per-worker state through
  /// HandlerParams::worker(): the proxy, its worker's upstreams.
  AppContext builtins{"built-in", 0};
  WorkerContext builtins_checking{builtins, -1};
  HandlerRegistry registry;
};

/// Registers the built-in handlers, the proxy (for `config`'s upstreams:
/// `config` must outlive the result) and the built-in middleware, then
/// loads `config`'s plugins in order (not started). A plugin file that
/// changed since this process first loaded it is loaded afresh (see
/// load_plugin), so a reload picks up a rebuilt plugin. Throws ConfigError
/// naming the plugin's JSON path.
std::unique_ptr<LoadedHandlers> load_handlers(const Config& config);

}  // namespace tiffany
