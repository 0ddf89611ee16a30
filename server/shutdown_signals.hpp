// Shutdown signals: SIGINT/SIGTERM delivered through a signalfd the reactor watches.
#pragma once

#include "coro/task.hpp"
#include "reactor/unique_fd.hpp"

namespace tiffany {

/// Blocks SIGINT and SIGTERM for the calling thread (call before starting
/// threads, so they inherit the mask), ignores SIGPIPE, and returns a signalfd
/// that reports them.
UniqueFd block_shutdown_signals();

/// Waits (ReadWait) for a signal on `signal_fd`, logs it, and stops the
/// current scheduler.
Task<void> stop_on_signal(int signal_fd);

}  // namespace tiffany
