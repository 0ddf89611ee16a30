// Loading handler plugins (.so files) into the handler registry.
#pragma once

#include <stdexcept>
#include <string>

#include <tiffany/handlers/handler_registry.hpp>

#include "handlers/engine/plugin_host.hpp"

namespace tiffany {

/// Why a plugin could not be loaded; what() is one line for the operator.
class PluginError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// dlopens `path` (absolute), checks its ABI version and lets it register its
/// handlers into `registry` with `path` as their origin. Throws PluginError
/// for a missing file, a file that is not a Tiffany plugin, an ABI mismatch,
/// a handler name already taken, or a plugin whose init refuses.
///
/// A file that changed since this process first loaded `path` is loaded
/// from a private copy (plugin_copy.hpp), so a reload runs a rebuilt plugin.
///
/// The plugin joins `host`, which owns its hooks and contexts and runs them
/// with the server's lifecycle; declare `host` before `registry`.
void load_plugin(const std::string& path, HandlerRegistry& registry, PluginHost& host);

}  // namespace tiffany
