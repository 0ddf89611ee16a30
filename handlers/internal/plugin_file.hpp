// Plugin file: what a plugin .so declares, read from the file without loading it.
#pragma once

#include <optional>
#include <string>

namespace tiffany {

/// The value of the plugin's exported `tiffany_plugin_abi_version`, read
/// from its ELF symbol table and data, without dlopen: a plugin built for
/// another ABI or with other flags may not even load (an undefined, mangled
/// symbol), and none of its code should run. nullopt when the file is not a
/// 64-bit ELF shared object exporting that symbol as 4 bytes of file data.
std::optional<unsigned> read_plugin_abi_version(const std::string& path);

}  // namespace tiffany
