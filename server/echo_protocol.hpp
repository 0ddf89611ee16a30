// The echo protocol: every byte received is sent back.
#pragma once

#include "coro/task.hpp"
#include "reactor/unique_fd.hpp"

namespace tiffany {

/// Echoes everything `socket` receives until the peer closes its side or the
/// connection fails, then closes the socket. Partial sends are completed
/// before the next receive, so bytes come back in order and none are lost.
Task<void> serve_echo(UniqueFd socket);

}  // namespace tiffany
