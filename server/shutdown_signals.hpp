// Shutdown signals: SIGINT/SIGTERM delivered through a signalfd.
#pragma once

#include <tiffany/reactor/unique_fd.hpp>

namespace tiffany {

/// Blocks SIGINT and SIGTERM for the calling thread (call before starting
/// threads, so they inherit the mask), ignores SIGPIPE, and returns a signalfd
/// that reports them.
UniqueFd block_shutdown_signals();

}  // namespace tiffany
