// format_peer: a connection's peer address as log lines and protocols show it.
#pragma once

#include <sys/socket.h>

#include <string>

namespace tiffany {

/// "127.0.0.1:5000" or "[::1]:5000".
std::string format_peer(const sockaddr_storage& peer);

}  // namespace tiffany
