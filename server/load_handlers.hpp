// load_handlers: the handlers and middleware one config can name — built-ins, the proxy, its plugins'.
#pragma once

#include <memory>

#include <tiffany/handlers/handler_registry.hpp>

#include "handlers/engine/plugin_host.hpp"

namespace tiffany {

struct Config;

/// A registry and the plugins whose factories it holds. Why one object:
/// the host must outlive the registry (declared first, destroyed last).
struct LoadedHandlers {
  PluginHost plugins;
  HandlerRegistry registry;
};

/// Registers the built-in handlers, the proxy and the built-in middleware,
/// then loads `config`'s plugins in order (not started). A plugin file that
/// changed since this process first loaded it is loaded afresh (see
/// load_plugin), so a reload picks up a rebuilt plugin. Throws ConfigError
/// naming the plugin's JSON path.
std::unique_ptr<LoadedHandlers> load_handlers(const Config& config);

}  // namespace tiffany
