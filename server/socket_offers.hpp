// Socket offers: listening sockets a generation may take instead of binding — the previous
// generation's on a reload, or those this process was handed at start (systemd socket activation,
// or the Tiffany it upgrades).
#pragma once

#include <vector>

#include "conf/listen_address.hpp"
#include "server/listen_socket.hpp"

namespace tiffany {

/// The sockets listening on one address, offered to the listener configured there.
struct SocketOffer {
  ListenAddress address;              // a listener's configured address must be the same endpoint
  std::vector<ListenSocket> sockets;  // one per worker of whoever had them (at least one)
  bool taken = false;
};
using SocketOffers = std::vector<SocketOffer>;

/// Environment variable naming the listening descriptors an upgrading
/// Tiffany hands its successor: "3,4,5".
inline constexpr const char* kInheritedSocketsVariable = "TIFFANY_LISTEN_FDS";

/// The listening sockets this process was handed, grouped by address: those
/// of systemd's socket activation (LISTEN_FDS, when LISTEN_PID is this
/// process; descriptors from 3) and those of kInheritedSocketsVariable.
/// Unsets those variables and marks the descriptors close-on-exec. Throws
/// std::runtime_error naming a descriptor that is not a listening TCP socket.
SocketOffers take_inherited_sockets();

/// Whether `fd` has SO_REUSEPORT set: then a new socket bound beside it joins
/// its port, else the workers must share it.
bool reuses_port(int fd);

}  // namespace tiffany
