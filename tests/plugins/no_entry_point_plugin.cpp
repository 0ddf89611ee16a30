// A library that declares an ABI version but has no tiffany_plugin_init: not a plugin.
#include <tiffany/handlers/plugin_api.hpp>

extern "C" const unsigned tiffany_plugin_abi_version = tiffany::kPluginAbiVersion;
