// A plugin built for another plugin ABI: the server must refuse it, naming both versions.
#include <tiffany/handlers/plugin_api.hpp>

extern "C" const unsigned tiffany_plugin_abi_version = tiffany::kPluginAbiVersion + 41;

extern "C" void tiffany_plugin_init(tiffany::PluginRegistrar&, unsigned) {}
