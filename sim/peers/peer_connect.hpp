// What every simulated client starts with: a connected socket, and a count of its task's end.
#pragma once

#include <cstdint>

#include <tiffany/coro/task.hpp>
#include <tiffany/reactor/unique_fd.hpp>

namespace tiffany::sim {

/// A socket connected to `ip`:`port` over the simulated network (through
/// the reactor's Connect, as the server's client does), or an empty one when
/// the connect failed (refused, the backlog full, no answer).
Task<UniqueFd> connect_to(const char* ip, std::uint16_t port);

/// Counts a client's end in its tally, however its task ends (finished,
/// failed, canceled): a scenario waits until every client has ended.
template <class Tally>
struct CountsTheEnd {
  Tally& tally;
  ~CountsTheEnd() { ++tally.ended; }
};

}  // namespace tiffany::sim
