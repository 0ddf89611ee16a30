// happy_eyeballs: staggered connection attempts to a name's addresses (RFC 8305); the first to connect wins.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <utility>
#include <vector>

#include <tiffany/coro/task.hpp>
#include <tiffany/net/socket_address.hpp>
#include <tiffany/reactor/unique_fd.hpp>

namespace tiffany::detail {

/// What one attempt came to: a connected socket, or the errno that ended it.
struct AttemptOutcome {
  AttemptOutcome(UniqueFd connected) noexcept : socket(std::move(connected)) {}
  explicit AttemptOutcome(int failure) noexcept : error(failure) {}
  UniqueFd socket;
  int error = 0;  // 0: connected
};

/// Connects one socket to one address. Canceling it must close whatever it opened.
using ConnectAttempt = std::function<Task<AttemptOutcome>(SocketAddress)>;

/// How the race went: the winner's socket and address (socket invalid: no
/// winner), and each failed attempt's address and errno, in the order they failed.
struct EyeballsOutcome {
  UniqueFd socket;
  SocketAddress address;
  std::vector<std::pair<SocketAddress, int>> failures;
};

/// RFC 8305 §4: the addresses in the resolver's order, but alternating
/// families, starting with the family of the first.
std::vector<SocketAddress> interleave_families(const std::vector<SocketAddress>& addresses);

/// Starts `attempt` on each address in turn, each after the previous one
/// failed or after `delay` (whichever comes first), while earlier ones go
/// on; the first to connect wins and the others are canceled and joined
/// before this returns (so none outlives it). All failed: no socket.
/// Canceling the caller cancels every attempt. `addresses` as given (call
/// interleave_families first).
Task<EyeballsOutcome> happy_eyeballs(std::vector<SocketAddress> addresses, std::chrono::nanoseconds delay,
                                     ConnectAttempt attempt);

/// The real attempt: a TCP socket connected through the reactor, with TCP_NODELAY.
Task<AttemptOutcome> connect_tcp(SocketAddress address);

}  // namespace tiffany::detail
