// load_handlers: built-ins first, then each plugin of the config.
#include "server/load_handlers.hpp"

#include "conf/config.hpp"
#include "conf/config_error.hpp"
#include "handlers/builtin/proxy/proxy_handler.hpp"
#include "handlers/builtin/pubsub/pubsub_handler.hpp"
#include "handlers/engine/plugin_loader.hpp"

namespace tiffany {

std::unique_ptr<LoadedHandlers> load_handlers(const Config& config) {
  auto loaded = std::make_unique<LoadedHandlers>();
  loaded->builtins.set_workers(config.workers);
  register_builtin_handlers(loaded->registry);
  proxy::register_proxy_handler(loaded->registry, config.upstreams);
  pubsub::register_pubsub_handler(loaded->registry);
  register_builtin_middleware(loaded->registry.middleware());
  for (const PluginConfig& plugin : config.plugins) {
    try {
      load_plugin(plugin.path, loaded->registry, loaded->plugins);
    } catch (const PluginError& e) {
      throw ConfigError(config.file, plugin.json_path, e.what());
    }
  }
  return loaded;
}

}  // namespace tiffany
