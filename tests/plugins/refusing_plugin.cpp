// A plugin whose entry point refuses to load, with a reason.
#include <stdexcept>

#include <tiffany/handlers/plugin_api.hpp>

extern "C" const unsigned tiffany_plugin_abi_version = tiffany::kPluginAbiVersion;

extern "C" void tiffany_plugin_init(tiffany::PluginRegistrar&, unsigned) {
  throw std::runtime_error("license key missing");
}
