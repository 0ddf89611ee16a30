// Server signals: SIGINT/SIGTERM (shutdown), SIGUSR1 (reopen logs), SIGHUP (reload), SIGUSR2
// (binary upgrade), delivered through a signalfd.
#pragma once

#include <chrono>

#include <tiffany/reactor/unique_fd.hpp>

namespace tiffany {

/// Blocks SIGINT, SIGTERM, SIGHUP, SIGUSR1 and SIGUSR2 for the calling thread (call
/// before starting threads, so they inherit the mask and none of them can be
/// killed by these signals' default action), ignores SIGPIPE, and returns a
/// signalfd that reports them.
UniqueFd block_server_signals();

/// Waits up to `timeout` for one of those signals on `signal_fd`; returns
/// its number, or 0 when none came.
int next_signal(int signal_fd, std::chrono::milliseconds timeout);

/// "SIGTERM", "SIGINT", "SIGHUP", "SIGUSR1", "SIGUSR2" (or "signal").
const char* signal_name(int signal) noexcept;

}  // namespace tiffany
