// Plugin copy: which path to dlopen for a plugin file, so a rebuilt plugin is really loaded again.
#pragma once

#include <string>

namespace tiffany {

/// The path to dlopen for the plugin file at `path`: `path` itself the
/// first time; the path used last time while the file is the one loaded
/// then (same device, inode, size and modification time), so an unchanged
/// plugin is the same library; else a private copy of today's file
/// ("/proc/self/fd/N", a memfd kept open for the process's life), or `path`
/// when no copy can be made.
/// Why: dlopen knows a library it loaded by its path and hands back that
/// one, so a plugin rebuilt since would keep its old code across a reload.
/// Main thread only.
std::string plugin_path_to_load(const std::string& path);

}  // namespace tiffany
